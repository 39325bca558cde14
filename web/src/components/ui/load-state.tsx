import { ApiError } from '../../lib/api';
import { WayOn } from './way-on';

export function Loading({ label = '読み込み中です…' }: { label?: string }) {
  return (
    <p className="loading" role="status">
      <span className="spinner small" aria-hidden="true" />
      {label}
    </p>
  );
}

/** 403, 404 and the like: trying again gives the same answer. */
const isFinal = (error: unknown) =>
  error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;

/**
 * The error state of a page that failed to load: a retry when trying again can help, and always a
 * way on (the catalogue, the member's page, or sign-in), never a dead end.
 */
export function LoadError({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const message =
    error instanceof ApiError
      ? error.status === 403
        ? 'このページを表示する権限がありません。'
        : error.message
      : '読み込みに失敗しました。時間をおいて再度お試しください。';
  return (
    <div className="load-error">
      <div className="alert" role="alert">
        <p>{message}</p>
      </div>
      {onRetry && !isFinal(error) ? (
        <button type="button" className="button" onClick={onRetry}>
          再読み込み
        </button>
      ) : (
        <WayOn />
      )}
    </div>
  );
}
