import { type FormEvent, useId, useState } from 'react';
import useSWR from 'swr';
import { type Answer, api } from '../lib/api';
import { formatJapanTime } from '../lib/japan-time';
import { useFormSubmit } from '../lib/use-form-submit';
import { FormAlert, Notice } from './ui/form-alert';
import { LoadError, Loading } from './ui/load-state';
import './notes-timeline.css';

type NotesPath = `/api/sales/${number}/notes` | `/api/users/${string}/notes`;
type Notes = Answer<'/api/sales/{id}/notes'>;

/**
 * ショップ用メモ: the timeline (author, Japan time) and, for a role that may write (`canAdd`), a form
 * to add one. Staff only; never shown to members.
 */
export function NotesTimeline({ path, subject, canAdd }: { path: NotesPath; subject: string; canAdd: boolean }) {
  const headingId = useId();
  const { data, error, isLoading, mutate } = useSWR<Notes>(path);
  return (
    <section className="subsection" aria-labelledby={headingId}>
      <h2 id={headingId}>メモ（管理者のみ）</h2>
      <p className="small">{subject}についての社内向けのメモです。会員には表示されません。</p>
      {isLoading ? <Loading label="メモを読み込んでいます…" /> : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {data && data.notes.length === 0 ? <p>メモはまだありません。</p> : null}
      {data && data.notes.length > 0 ? (
        <ol className="notes-timeline">
          {data.notes.map((note) => (
            <li key={note.id}>
              <p className="small">
                <time dateTime={note.created_at}>{formatJapanTime(note.created_at)}</time>　{note.author_email}
              </p>
              <p className="note-body">{note.body}</p>
            </li>
          ))}
        </ol>
      ) : null}
      {canAdd ? <NoteForm path={path} idBase={headingId} onAdded={() => mutate()} /> : null}
    </section>
  );
}

/** メモを追加 (1〜2,000 characters); the timeline is read again once it is kept. */
function NoteForm({ path, idBase, onAdded }: { path: NotesPath; idBase: string; onAdded: () => Promise<unknown> }) {
  const [body, setBody] = useState('');
  const [notice, setNotice] = useState('');
  const { busy, message, errors, run } = useFormSubmit();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await run(async () => {
      const res = await api<Answer<'/api/sales/{id}/notes', 'post'>>(path, { method: 'POST', body: { body } });
      setBody('');
      setNotice(res.message);
      await onAdded();
    });
  };
  return (
    <>
      {notice ? <Notice>{notice}</Notice> : null}
      <form onSubmit={submit} noValidate className="subform">
        <FormAlert message={message} errors={errors} fields={['body']} />
        <div className="field">
          <label htmlFor={`${idBase}-body`}>メモを追加</label>
          <textarea
            id={`${idBase}-body`}
            name="body"
            rows={3}
            maxLength={2000}
            value={body}
            aria-invalid={errors.body ? true : undefined}
            aria-describedby={errors.body ? `${idBase}-message` : undefined}
            onChange={(event) => setBody(event.currentTarget.value)}
          />
          {errors.body ? (
            <p id={`${idBase}-message`} className="field-message">
              {errors.body}
            </p>
          ) : null}
        </div>
        <button type="submit" className="button" disabled={busy}>
          メモを残す
        </button>
      </form>
    </>
  );
}
