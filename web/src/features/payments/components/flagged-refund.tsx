import { useId, useState } from 'react';
import { useSWRConfig } from 'swr';
import { RefundReasonField } from '../../../components/refund-reason';
import { ConfirmDialog } from '../../../components/ui/confirm-dialog';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { formatPrice } from '../../../lib/format';
import { formatDateTime } from '../../../lib/japan-time';
import { useCan } from '../../../lib/permissions';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { type Finding, refundFlaggedPayment } from '../api';

type Refund = NonNullable<Finding['refund']>;

const REASON_FIELDS = { reason: '返金の理由' };

/** Where a flagged payment's refund stands: refunded, asked of Stripe, or not yet. */
function RefundState({ refund }: { refund: Refund }) {
  if (refund.state === 'refunded') {
    return (
      <p className="small">
        <span className="tag">返金済み</span> {formatPrice(refund.refunded_amount)}を
        {refund.refunded_at ? `${formatDateTime(refund.refunded_at)}に` : ''}返金しました
        {refund.requested_by ? `（${refund.requested_by}）` : ''}。{refund.reason ? ` 理由：${refund.reason}` : ''}
      </p>
    );
  }
  if (refund.state === 'requested') {
    return (
      <p className="small" role="status">
        <span className="tag">返金手続き中</span> Stripe に返金を依頼しました。完了の通知が届くと「返金済み」になります。
      </p>
    );
  }
  return null;
}

/**
 * 「この支払いを返金」 on a payment kept without a sale (購入済み・満席・非公開): the whole amount,
 * refunded at Stripe after a confirmation with the amount and a required reason. A role that may not
 * refund (sales:refund) sees only where it stands.
 */
export function FlaggedRefund({ sessionId, refund, onChanged }: { sessionId: string; refund: Refund; onChanged: () => void }) {
  const canRefund = useCan()('sales:refund');
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const reasonId = useId();
  const [notice, setNotice] = useState('');
  const { busy, message, errors, run } = useFormSubmit(REASON_FIELDS);
  const { mutate } = useSWRConfig();
  const confirm = () => {
    void run(async () => {
      const answer = await refundFlaggedPayment(sessionId, { reason });
      setOpen(false);
      setReason('');
      setNotice(answer.message);
      onChanged();
      // The same payment on the inbox row and the finding, and the runs' open counts, are read again.
      void mutate((key) => typeof key === 'string' && key.startsWith('/api/payments/'));
    });
  };
  return (
    <div className="flagged-refund">
      {notice ? <Notice>{notice}</Notice> : null}
      <RefundState refund={refund} />
      {canRefund && refund.state !== 'refunded' ? (
        <p className="actions">
          <button
            type="button"
            className="button danger"
            aria-haspopup="dialog"
            aria-label={`この支払いを返金（${refund.order_number ? `注文番号 ${refund.order_number}` : sessionId}）`}
            onClick={() => setOpen(true)}
          >
            この支払いを返金
          </button>
        </p>
      ) : null}
      {canRefund ? (
        <ConfirmDialog
          open={open}
          title="支払いの返金の確認"
          confirmLabel="返金する"
          danger
          busy={busy}
          onConfirm={confirm}
          onCancel={() => setOpen(false)}
        >
          <p>
            {refund.order_number ? `ご注文番号 ${refund.order_number} の` : 'この'}お支払い{' '}
            <strong>{formatPrice(refund.amount)}</strong> を全額、Stripe で返金します。返金は取り消せません。
          </p>
          <p className="small">売上にしなかった理由：{refund.flag_reason}</p>
          <p className="small">返金すると、会員に返金額を記した返金のお知らせメールが届きます。</p>
          <RefundReasonField id={reasonId} reason={reason} message={errors.reason} onReason={setReason} />
          <FormAlert message={message} errors={errors} fields={['reason']} />
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
