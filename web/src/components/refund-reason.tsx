/** 返金の理由 (required, 200 characters), its message tied to it: the sale's refund and a kept payment's. */
export function RefundReasonField({
  id,
  reason,
  message,
  onReason,
}: {
  id: string;
  reason: string;
  message: string | undefined;
  onReason: (reason: string) => void;
}) {
  return (
    <div className="field">
      <div className="field-label">
        <label htmlFor={id}>返金の理由</label>
        <span className="required" aria-hidden="true">
          必須
        </span>
      </div>
      <textarea
        id={id}
        name="reason"
        rows={3}
        maxLength={200}
        required
        value={reason}
        aria-invalid={message ? true : undefined}
        aria-describedby={message ? `${id}-message` : undefined}
        onChange={(event) => onReason(event.currentTarget.value)}
      />
      {message ? (
        <p id={`${id}-message`} className="field-message">
          {message}
        </p>
      ) : null}
    </div>
  );
}
