import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { TextInput } from '../../../components/ui/text-input';
import { formatDateTime } from '../../../lib/japan-time';
import { useCan } from '../../../lib/permissions';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { acknowledgeFinding, type Finding, useReconciliation } from '../api';
import { FlaggedRefund } from './flagged-refund';
import { money } from './money';

/** One run's findings, each with where to look and its 確認済み. */
export function Findings({ id }: { id: string }) {
  const { data, error, isLoading, mutate } = useReconciliation(id);
  if (isLoading) return <Loading />;
  if (error) return <LoadError error={error} onRetry={() => void mutate()} />;
  if (!data) return null;
  const { reconciliation, findings } = data;
  return (
    <div className="subsection">
      <h3>{formatDateTime(reconciliation.started_at ?? reconciliation.created_at)} の照合結果</h3>
      {findings.length === 0 ? (
        <Notice>差異はありませんでした。Stripe の支払いと売上はすべて一致しています。</Notice>
      ) : (
        <ul className="findings">
          {findings.map((finding) => (
            <FindingItem key={finding.id} finding={finding} onChanged={() => void mutate()} />
          ))}
        </ul>
      )}
    </div>
  );
}

function FindingItem({ finding, onChanged }: { finding: Finding; onChanged: () => void }) {
  const can = useCan();
  return (
    <li className="finding">
      <p>
        <span className="tag">{finding.kind_label}</span> {finding.detail}
      </p>
      <p className="small">
        Stripe：{money(finding.stripe_amount, finding.stripe_currency)} ／ この店：
        {money(finding.our_amount, finding.our_currency)}
        {finding.stripe_session_id ? ` ／ Stripe の決済セッションID：${finding.stripe_session_id}` : ''}
        {finding.sale_order_number ? ` ／ 注文番号：${finding.sale_order_number}` : ''}
      </p>
      <p className="actions">
        {finding.event_id ? (
          <Link to={`/admin/payments?${new URLSearchParams({ session: finding.stripe_session_id ?? '' })}#inbox`}>
            {can('payments:update') ? '受信したイベントを見て再実行する' : '受信したイベントを見る'}
          </Link>
        ) : null}
        {finding.sale_user_id ? (
          <Link to={`/admin/users/${finding.sale_user_id}`}>
            {finding.sale_order_number ? `注文番号 ${finding.sale_order_number} の購入者` : 'この売上の購入者'}
          </Link>
        ) : null}
        {finding.sale_id && !finding.sale_user_id && finding.sale_buyer_email ? (
          <Link to={`/admin/licenses/issue?${new URLSearchParams({ q: finding.sale_buyer_email })}`}>
            {finding.sale_order_number ? `注文番号 ${finding.sale_order_number} の売上` : 'この売上'}
          </Link>
        ) : null}
      </p>
      {finding.refund && finding.stripe_session_id ? (
        <FlaggedRefund sessionId={finding.stripe_session_id} refund={finding.refund} onChanged={onChanged} />
      ) : null}
      <FindingAcknowledgement finding={finding} onChanged={onChanged} />
    </li>
  );
}

/** 確認済み with who, when and the note; or the form that marks it so (a note is required). */
function FindingAcknowledgement({ finding, onChanged }: { finding: Finding; onChanged: () => void }) {
  const [note, setNote] = useState('');
  const [open, setOpen] = useState(false);
  const [notice, setNotice] = useState('');
  const { busy, message, errors, run } = useFormSubmit();
  const canAcknowledge = useCan()('payments:update');
  if (finding.acknowledged_at) {
    return (
      <div className="finding-acknowledged">
        <p className="small">
          <strong>確認済み</strong>（{formatDateTime(finding.acknowledged_at)}
          {finding.acknowledged_by ? `・${finding.acknowledged_by}` : ''}）
        </p>
        {finding.acknowledgement_note ? <p className="small">メモ：{finding.acknowledgement_note}</p> : null}
        {notice ? <Notice>{notice}</Notice> : null}
      </div>
    );
  }
  if (!canAcknowledge) return <p className="small">未確認</p>;
  if (!open) {
    return (
      <p className="actions">
        <button
          type="button"
          className="button"
          aria-label={`${finding.kind_label}（${finding.sale_order_number ?? finding.stripe_session_id ?? finding.detail}）を確認済みにする`}
          onClick={() => setOpen(true)}
        >
          確認済みにする
        </button>
      </p>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const answer = await acknowledgeFinding(finding.id, { note });
      setNotice(answer.message);
      onChanged();
    });
  };
  return (
    <form className="finding-acknowledge" onSubmit={submit} noValidate>
      <TextInput
        label="確認した内容・対応（500文字まで）"
        name="note"
        required
        value={note}
        onInput={setNote}
        message={errors.note}
      />
      <FormAlert message={message} errors={errors} fields={['note']} />
      <div className="actions">
        <button type="submit" className="button primary" disabled={busy}>
          確認済みにする
        </button>
        <button type="button" className="button secondary" onClick={() => setOpen(false)}>
          やめる
        </button>
      </div>
    </form>
  );
}
