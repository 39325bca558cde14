/** Previous / next and "n / m" for a paged list. */
export function Pager({
  page,
  perPage,
  total,
  onPage,
}: {
  page: number;
  perPage: number;
  total: number;
  onPage: (page: number) => void;
}) {
  const pages = Math.max(1, Math.ceil(total / perPage));
  if (pages <= 1) return null;
  return (
    <nav className="pager" aria-label="ページ送り">
      <button type="button" className="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        前へ
      </button>
      <span>
        {page} / {pages} ページ（全{total}件）
      </span>
      <button type="button" className="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        次へ
      </button>
    </nav>
  );
}
