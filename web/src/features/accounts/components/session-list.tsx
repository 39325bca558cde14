import { useEffect, useState } from 'react';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { formatDateTime } from '../../../lib/japan-time';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { endSessions, useSessions } from '../api/use-sessions';

/** A time the server may not know (a session from before it recorded one). */
const when = (iso: string | null) => (iso ? formatDateTime(iso) : '不明');

/**
 * ログイン中の端末 on the member's own page: where they are signed in, and ending those sessions
 * (one, or every one but this browser). The mail 新しい端末からのログイン links here (#sessions).
 */

export function SessionList() {
  const { data, error, isLoading, mutate } = useSessions(true);
  const { busy, message, errors, run } = useFormSubmit();
  const [done, setDone] = useState('');

  useEffect(() => {
    if (data && window.location.hash === '#sessions') document.getElementById('sessions')?.scrollIntoView();
  }, [data]);

  const end = (path: `/api/me/sessions${string}`) =>
    run(async () => {
      setDone('');
      const res = await endSessions(path);
      setDone(res.message);
      await mutate();
    });

  const others = data?.sessions.filter((s) => !s.current).length ?? 0;
  return (
    <section className="subsection" id="sessions" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">ログイン中の端末</h2>
      <p className="small">心当たりのない端末があれば、その端末をログアウトさせ、パスワードを変更してください。</p>
      {done ? <Notice>{done}</Notice> : null}
      <FormAlert message={message} errors={errors} />
      {isLoading ? <Loading /> : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {data && data.sessions.length === 0 ? <p>ログイン中の端末はありません。</p> : null}
      {data && data.sessions.length > 0 ? (
        <>
          <ul className="session-list">
            {data.sessions.map((session) => (
              <li key={session.id} className="session-item">
                <div>
                  <p className="session-device">
                    {session.device}
                    {session.current ? <span className="tag">この端末</span> : null}
                  </p>
                  <p className="small">
                    最終利用 {when(session.last_active_at)}（日本時間）／ログイン {when(session.created_at)}
                    <br />
                    IPアドレス {session.ip ?? '不明'}
                  </p>
                </div>
                {session.current ? null : (
                  <button
                    type="button"
                    className="button"
                    disabled={busy}
                    onClick={() => void end(`/api/me/sessions/${session.id}`)}
                  >
                    ログアウトさせる
                  </button>
                )}
              </li>
            ))}
          </ul>
          {others > 0 ? (
            <div className="actions">
              <button type="button" className="button" disabled={busy} onClick={() => void end('/api/me/sessions')}>
                この端末以外をすべてログアウト
              </button>
            </div>
          ) : (
            <p className="small">ほかにログイン中の端末はありません。</p>
          )}
        </>
      ) : null}
    </section>
  );
}
