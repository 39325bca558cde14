import { useId, useState } from 'react';
import { RefundReasonField } from '../../../components/refund-reason';
import { ConfirmDialog } from '../../../components/ui/confirm-dialog';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import type { FieldErrors } from '../../../lib/api';
import { formatPrice } from '../../../lib/format';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { refundSale } from '../api';
import type { OrderDetail } from '../order-api';
import { jst } from './order-facts';
import { RefundAmount, RefundList } from './refund-amount';

/** Where the refund stands: done, asked of Stripe, or impossible from here. */
function RefundStatus({ sale }: { sale: OrderDetail }) {
  return (
    <>
      {sale.refund.state === 'refunded' ? (
        <p>
          <span className="tag">返金済み</span> {jst(sale.refund.refunded_at)}に Stripe で返金が確定しました。
        </p>
      ) : null}
      {sale.refund.state === 'partially_refunded' ? (
        <p>
          <span className="tag">一部返金</span> {formatPrice(sale.refund.refunded_amount)}を返金済みです（残り{' '}
          {formatPrice(sale.refund.remaining_amount)}）。
        </p>
      ) : null}
      {sale.refund.state === 'requested' ? (
        <p role="status">
          <span className="tag">返金手続き中</span> Stripe に返金を依頼しました。完了の通知が届くと「返金済み」になります。
        </p>
      ) : null}
      {sale.refund.requested_at ? (
        <dl className="summary">
          <dt>返金の依頼</dt>
          <dd>
            {jst(sale.refund.requested_at)}
            {sale.refund.requested_by ? `（${sale.refund.requested_by}）` : ''}
          </dd>
          <dt>返金の理由</dt>
          <dd>{sale.refund.reason ?? '—'}</dd>
        </dl>
      ) : null}
      <RefundList refunds={sale.refund.refunds} />
      {sale.refund.state === 'none' && !sale.stripe_payment_intent_id ? (
        <p>
          この売上には Stripe の支払いIDの記録がないため、管理画面からは返金できません。Stripe
          のダッシュボードで返金してください。
        </p>
      ) : null}
    </>
  );
}

/** The refund's confirmation: the amount, the export warning, the reason and, once exported, the promise to tell. */
function RefundDialog({
  sale,
  open,
  busy,
  message,
  errors,
  reason,
  onReason,
  amount,
  onAmount,
  told,
  onTold,
  onConfirm,
  onCancel,
}: {
  sale: OrderDetail;
  open: boolean;
  busy: boolean;
  message: string;
  errors: FieldErrors;
  reason: string;
  onReason: (reason: string) => void;
  amount: string;
  onAmount: (amount: string) => void;
  told: boolean;
  onTold: (told: boolean) => void;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const reasonId = useId();
  const buyer = `${sale.buyer_at_purchase.last_name} ${sale.buyer_at_purchase.first_name}`.trim();
  return (
    <ConfirmDialog
      open={open}
      title="返金の確認"
      confirmLabel="返金する"
      danger
      busy={busy}
      confirmDisabled={sale.exported && !told}
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      <p>
        注文番号 {sale.order_number ?? `（売上ID ${sale.id}）`}（{sale.license_name}、{buyer || '購入者'} 様）の代金{' '}
        <strong>{formatPrice(sale.amount)}</strong> のうち、入力した金額を返金します。返金は取り消せません。
      </p>
      <RefundAmount
        id={`${reasonId}-amount`}
        amount={amount}
        remaining={sale.refund.remaining_amount}
        message={errors.amount}
        onAmount={onAmount}
      />
      {sale.exported ? (
        <div className="alert">
          <p>
            この売上は研修管理システム向けに出力済みです（現在：{sale.status_label}
            ）。返金後、研修管理システムでの登録の取り消しを担当者に連絡してください。
          </p>
        </div>
      ) : null}
      <RefundReasonField id={reasonId} reason={reason} message={errors.reason} onReason={onReason} />
      {sale.exported ? (
        <div className="field checkbox-field">
          <input
            id={`${reasonId}-told`}
            type="checkbox"
            name="confirm_exported"
            checked={told}
            onChange={(event) => onTold(event.currentTarget.checked)}
          />
          <label htmlFor={`${reasonId}-told`}>研修管理システムに登録の取り消しを連絡します</label>
        </div>
      ) : null}
      <FormAlert message={message} errors={errors} fields={['amount', 'reason']} />
    </ConfirmDialog>
  );
}

/** The refund form's fields by their own labels, for the summary of a refused refund. */
const REFUND_FIELDS = { amount: '返金額（円）', reason: '返金の理由' };

/**
 * 返金: the state, and for a paid sale and a role that may refund (`canRefund`) the refund asked of
 * Stripe after the app's confirmation dialog.
 */
export function RefundSection({ sale, canRefund, onChanged }: { sale: OrderDetail; canRefund: boolean; onChanged: () => void }) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [amount, setAmount] = useState('');
  const [told, setTold] = useState(false);
  const [notice, setNotice] = useState('');
  const { busy, message, errors, run } = useFormSubmit(REFUND_FIELDS);
  const refundable =
    canRefund &&
    ['none', 'partially_refunded'].includes(sale.refund.state) &&
    sale.refund.remaining_amount > 0 &&
    Boolean(sale.stripe_payment_intent_id);
  const openDialog = () => {
    setAmount(String(sale.refund.remaining_amount));
    setOpen(true);
  };

  const confirm = () => {
    void run(async () => {
      const res = await refundSale(sale.id, {
        reason,
        confirm_exported: sale.exported ? told : false,
        ...(amount.trim() === '' ? {} : { amount: Number(amount) }),
      });
      setOpen(false);
      setReason('');
      setTold(false);
      setNotice(res.message);
      onChanged();
    });
  };

  return (
    <section className="subsection" aria-labelledby="refund-heading">
      <h2 id="refund-heading">返金</h2>
      {notice ? <Notice>{notice}</Notice> : null}
      <RefundStatus sale={sale} />
      {!canRefund && sale.refund.state === 'none' && sale.stripe_payment_intent_id ? <p>返金はありません。</p> : null}
      {refundable ? (
        <>
          <p className="small">
            代金の全額または一部を Stripe で返金します。返金が確定すると、購入者に返金額を記した返金のお知らせメールが届きます。
          </p>
          <button type="button" className="button danger" aria-haspopup="dialog" onClick={openDialog}>
            返金する
          </button>
        </>
      ) : null}
      {canRefund ? (
        <RefundDialog
          sale={sale}
          open={open}
          busy={busy}
          message={message}
          errors={errors}
          reason={reason}
          onReason={setReason}
          amount={amount}
          onAmount={setAmount}
          told={told}
          onTold={setTold}
          onConfirm={confirm}
          onCancel={() => setOpen(false)}
        />
      ) : null}
    </section>
  );
}
