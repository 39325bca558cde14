import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { Loading } from '../../../components/ui/load-state';
import { ApiError, NETWORK_MESSAGE } from '../../../lib/api';
import { logout } from '../../../lib/auth-store';

/**
 * /logout signs out, whether reached from the menu (already signed out: `state.signedOut`) or opened
 * directly: the page posts the logout with its CSRF token, as the menu does, and only then says so.
 * `onSignedOut` lets the app forget what this browser keeps for the member (drafts).
 */
export function LogoutPage({ onSignedOut }: { onSignedOut?: () => Promise<void> }) {
  const alreadyOut = Boolean((useLocation().state as { signedOut?: boolean } | null)?.signedOut);
  const [state, setState] = useState<'working' | 'done' | 'failed'>(alreadyOut ? 'done' : 'working');
  const [reason, setReason] = useState(NETWORK_MESSAGE);
  const started = useRef(false);

  const signOut = useCallback(async () => {
    setState('working');
    try {
      await logout();
      await onSignedOut?.().catch(() => undefined);
      setState('done');
    } catch (error) {
      setReason(error instanceof ApiError ? error.message : NETWORK_MESSAGE);
      setState('failed');
    }
  }, [onSignedOut]);

  useEffect(() => {
    if (alreadyOut || started.current) return;
    started.current = true;
    void signOut();
  }, [alreadyOut, signOut]);

  return (
    <section className="card narrow">
      {state === 'working' ? (
        <>
          <h1>ログアウトしています</h1>
          <Loading label="ログアウトしています…" />
        </>
      ) : null}
      {state === 'failed' ? (
        <>
          <h1>ログアウトできませんでした</h1>
          <div className="alert" role="alert">
            <p>まだログアウトしていません。</p>
            <p>{reason}</p>
          </div>
          <button type="button" className="button primary" onClick={() => void signOut()}>
            もう一度ログアウトする
          </button>
        </>
      ) : null}
      {state === 'done' ? (
        <>
          <h1>ログアウトしました</h1>
          <p>ご利用ありがとうございました。</p>
          <p>
            <Link to="/login" className="button primary">
              ログイン画面へ
            </Link>
          </p>
        </>
      ) : null}
    </section>
  );
}
