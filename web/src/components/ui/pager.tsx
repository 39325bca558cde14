import { useSearchParams } from 'react-router';
import { withParams } from '../../lib/search-params';

/**
 * The one pager of the SPA: 前へ / 次へ around "n / m ページ（全k件）" for a paged list. A navigation
 * landmark named by `label` (a screen with two lists names each), the current page marked with
 * aria-current; it wraps onto two lines on a narrow phone. Nothing is drawn for a single page.
 */
export function Pager({
  page,
  perPage,
  total,
  onPage,
  label = 'ページ送り',
}: {
  page: number;
  perPage: number;
  total: number;
  onPage: (page: number) => void;
  label?: string;
}) {
  const pages = Math.max(1, Math.ceil(total / perPage));
  if (pages <= 1) return null;
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" className="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        前へ
      </button>
      <span className="pager-status" aria-current="page">
        {page} / {pages} ページ（全{total}件）
      </span>
      <button type="button" className="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        次へ
      </button>
    </nav>
  );
}

/**
 * A list's page kept in the address (`?page=`, so Back and a shared link return to it): the page
 * shown (1 when absent or not a page number) and a way to move to another, keeping the other
 * parameters (filters, sort). Page 1 is the address without `page`.
 */
export function usePageParam(): { page: number; setPage: (page: number) => void } {
  const [params, setParams] = useSearchParams();
  const asked = Number(params.get('page'));
  const page = Number.isInteger(asked) && asked >= 1 ? asked : 1;
  const setPage = (next: number) => setParams(withParams(params, { page: next > 1 ? String(next) : '' }));
  return { page, setPage };
}
