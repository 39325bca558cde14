import type { Schema } from '../../lib/api';
import { formatPrice } from '../../lib/format';
import { formatDateTime } from '../../lib/japan-time';

type BankTransfer = Schema<'BankTransfer'>;

/** 銀行振込's virtual account: where, how much and by when (Japan time); Stripe settles short or excess transfers. */
export function BankTransferDetails({ bank }: { bank: BankTransfer }) {
  return (
    <>
      <dl className="summary">
        <dt>お振込金額</dt>
        <dd>
          <strong>{formatPrice(bank.amount)}</strong>（税込）
        </dd>
        <dt>お振込期限</dt>
        <dd>
          <strong>{formatDateTime(bank.expires_at)}</strong>（日本時間）
        </dd>
        <dt>銀行</dt>
        <dd>
          {bank.bank_name}（{bank.bank_code}）
        </dd>
        <dt>支店</dt>
        <dd>
          {bank.branch_name}（{bank.branch_code}）
        </dd>
        <dt>口座種別</dt>
        <dd>{bank.account_type_label}</dd>
        <dt>口座番号</dt>
        <dd>
          <strong className="payment-code">{bank.account_number}</strong>
        </dd>
        <dt>口座名義</dt>
        <dd>{bank.account_holder_name}</dd>
      </dl>
      <p className="small">
        お客さま専用の口座です。振込手数料はお客さまのご負担となります。金額が不足・超過した場合は、Stripe（決済代行会社）がお客さまの残高として管理し、精算します。
      </p>
    </>
  );
}
