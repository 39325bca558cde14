import type { FormEvent } from 'react';
import { TextInput } from '../../../components/ui/text-input';
import type { AdminSale } from '../api';
import { count } from './sale-counts';

/** 差し戻し: the sales to move one status back and the reason, which the audit log keeps. */
export function RevertForm({
  sales,
  reason,
  onReason,
  message,
  busy,
  onSubmit,
  onCancel,
}: {
  sales: AdminSale[];
  reason: string;
  onReason: (reason: string) => void;
  message: string | undefined;
  busy: boolean;
  onSubmit: (event: FormEvent) => void;
  onCancel: () => void;
}) {
  return (
    <form className="subsection revert" onSubmit={onSubmit} aria-labelledby="revert-heading" noValidate>
      <h2 id="revert-heading">差し戻し（{count(sales.length)}）</h2>
      <p className="small">
        登録済みは処理中に、処理中は出力待ちに戻します。対象：
        {sales.map((s) => `${s.user.last_name} ${s.user.first_name}（${s.status_label}）`).join('、')}
      </p>
      <TextInput label="差し戻しの理由" name="reason" required value={reason} onInput={onReason} message={message} />
      <div className="actions">
        <button type="submit" className="button primary" disabled={busy}>
          差し戻す
        </button>
        <button type="button" className="button" onClick={onCancel}>
          やめる
        </button>
      </div>
    </form>
  );
}
