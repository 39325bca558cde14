/** The full-screen loading overlay with a spinner. */
export function LoadingOverlay({ show, label = '読み込み中です' }: { show: boolean; label?: string }) {
  if (!show) return null;
  return (
    <div className="overlay" role="status" aria-live="polite" data-testid="loading-overlay">
      <div className="spinner" aria-hidden="true" />
      <span className="visually-hidden">{label}</span>
    </div>
  );
}
