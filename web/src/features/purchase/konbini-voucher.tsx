import { Fragment } from 'react';
import { formatPrice } from '../../lib/format';
import { formatDateTime, formatJapanTime } from '../../lib/japan-time';
import type { KonbiniVoucher } from './api';

/** Chains whose codes are the same are listed together (Stripe usually issues one code for all). */
function groupedCodes(voucher: KonbiniVoucher) {
  const groups = new Map<string, { labels: string[]; payment_code: string; confirmation_number: string | null }>();
  for (const store of voucher.stores) {
    const key = `${store.payment_code}/${store.confirmation_number ?? ''}`;
    const group = groups.get(key) ?? {
      labels: [],
      payment_code: store.payment_code,
      confirmation_number: store.confirmation_number,
    };
    group.labels.push(store.label);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/**
 * The konbini voucher: the amount to pay (tax included), the deadline (Japan time), payment number(s),
 * confirmation number and Stripe's voucher page.
 */
export function KonbiniVoucherDetails({ voucher, amount }: { voucher: KonbiniVoucher; amount?: number }) {
  const groups = groupedCodes(voucher);
  return (
    <>
      <dl className="summary">
        {amount !== undefined ? (
          <>
            <dt>お支払い金額</dt>
            <dd>
              <strong>{formatPrice(amount)}</strong>
            </dd>
          </>
        ) : null}
        <dt>お支払い期限</dt>
        <dd>
          <strong>{formatDateTime(voucher.expires_at)}</strong>（日本時間）
        </dd>
        {groups.map((group) => (
          <Fragment key={group.payment_code + (group.confirmation_number ?? '')}>
            <dt>お支払い番号</dt>
            <dd>
              <strong className="payment-code">{group.payment_code}</strong>
              {groups.length > 1 ? <span className="small">（{group.labels.join('・')}）</span> : null}
            </dd>
            {group.confirmation_number ? (
              <>
                <dt>確認番号</dt>
                <dd>
                  <strong>{group.confirmation_number}</strong>
                </dd>
              </>
            ) : null}
          </Fragment>
        ))}
        <dt>使えるコンビニ</dt>
        <dd>{voucher.stores.map((store) => store.label).join('・')}</dd>
      </dl>
      {voucher.url ? (
        <p>
          <a href={voucher.url} target="_blank" rel="noreferrer">
            払込票（お支払い方法の詳しい案内）を開く
          </a>
        </p>
      ) : null}
    </>
  );
}

/** 「お支払い金額 ¥8,800（税込）／お支払い番号 123…／期限 2026/11/25 23:59（日本時間）」, for the purchase history's 状況 column. */
export function KonbiniVoucherSummary({ voucher, amount }: { voucher: KonbiniVoucher; amount?: number }) {
  const codes = groupedCodes(voucher);
  return (
    <span className="small" style={{ display: 'block' }}>
      {amount !== undefined ? <span style={{ display: 'block' }}>お支払い金額 {formatPrice(amount)}</span> : null}
      {codes.map((group) => (
        <span key={group.payment_code} style={{ display: 'block' }}>
          お支払い番号 {group.payment_code}
          {group.confirmation_number ? `／確認番号 ${group.confirmation_number}` : ''}
        </span>
      ))}
      <span style={{ display: 'block' }}>お支払い期限 {formatJapanTime(voucher.expires_at)}</span>
      {voucher.url ? (
        <a href={voucher.url} target="_blank" rel="noreferrer">
          払込票を開く
        </a>
      ) : null}
    </span>
  );
}
