import { useState } from 'react';
import { useNavigate } from 'react-router';
import { ApiError } from '../../../lib/api';
import type { CurrentUser } from '../../../lib/auth-store';
import { afterSignIn } from '../after-sign-in';

const FAILED = 'ログインに失敗しました。時間をおいて再度お試しください。';

/** What a failed step says: the server's message, else the generic one. */
const apiFailure = (error: unknown) => (error instanceof ApiError ? error.message : FAILED);

/**
 * One sign-in attempt at a time (password, code or passkey): busy while it runs, its failure shown,
 * and a signed-in user sent on to where they were going.
 */
export function useSignIn(next: string | null) {
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState('');
  const signedIn = (user: CurrentUser | null) => {
    if (user) navigate(afterSignIn(user, next), { replace: true });
  };
  const attempt = async (work: () => Promise<void>, failureOf: (error: unknown) => string = apiFailure) => {
    if (busy) return;
    setBusy(true);
    setFailure('');
    try {
      await work();
    } catch (error) {
      setFailure(failureOf(error));
    } finally {
      setBusy(false);
    }
  };
  return { busy, failure, setFailure, signedIn, attempt };
}

export type SignIn = ReturnType<typeof useSignIn>;
