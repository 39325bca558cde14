import { formatPrice } from '../../../lib/format';

/** 返金額 (yen, at most what remains), its message tied to it. */
export function RefundAmount({
  id,
  amount,
  remaining,
  message,
  onAmount,
}: {
  id: string;
  amount: string;
  remaining: number;
  message: string | undefined;
  onAmount: (amount: string) => void;
}) {
  const hint = `${id}-hint`;
  const described = [hint, message ? `${id}-message` : ''].filter(Boolean).join(' ');
  return (
    <div className="field">
      <div className="field-label">
        <label htmlFor={id}>返金額（円）</label>
        <span className="required" aria-hidden="true">
          必須
        </span>
      </div>
      <input
        id={id}
        name="amount"
        type="number"
        inputMode="numeric"
        min={1}
        max={remaining}
        step={1}
        required
        value={amount}
        aria-invalid={message ? true : undefined}
        aria-describedby={described}
        onChange={(event) => onAmount(event.currentTarget.value)}
      />
      <p id={hint} className="small">
        返金できる残りは {formatPrice(remaining)} です。一部だけ返金するときは金額を変えてください。
      </p>
      {message ? (
        <p id={`${id}-message`} className="field-message">
          {message}
        </p>
      ) : null}
    </div>
  );
}

/** What has been refunded so far, one line per refund. */
export function RefundList({
  refunds,
}: {
  refunds: { id: number; amount: number; reason: string | null; refunded_at: string | null }[];
}) {
  if (refunds.length === 0) return null;
  return (
    <ul className="refund-list">
      {refunds.map((refund) => (
        <li key={refund.id}>
          {formatPrice(refund.amount)}
          {refund.refunded_at ? '（確定）' : '（手続き中）'}
          {refund.reason ? `：${refund.reason}` : ''}
        </li>
      ))}
    </ul>
  );
}
