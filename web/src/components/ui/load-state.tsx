import { ApiError } from '../../lib/api';

export function Loading({ label = '読み込み中です…' }: { label?: string }) {
  return (
    <p className="loading" role="status">
      <span className="spinner small" aria-hidden="true" />
      {label}
    </p>
  );
}

/** The error state of a page that failed to load, with a retry. */
export function LoadError({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const message =
    error instanceof ApiError
      ? error.status === 403
        ? 'このページを表示する権限がありません。'
        : error.message
      : '読み込みに失敗しました。時間をおいて再度お試しください。';
  return (
    <div className="alert" role="alert">
      <p>{message}</p>
      {onRetry ? (
        <button type="button" className="button" onClick={onRetry}>
          再読み込み
        </button>
      ) : null}
    </div>
  );
}
