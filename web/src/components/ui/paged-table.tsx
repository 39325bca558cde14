import type { ReactNode } from 'react';
import { LoadError, Loading } from './load-state';
import { Pager } from './pager';

/** One page of a list as the API answers it. */
interface PageOf<T> {
  items: T[];
  page: number;
  per_page: number;
  total: number;
}

/**
 * The frame of every paged list: loading, the error (with a retry when it can help), the empty
 * state, then the count line, the table and the pager. The table itself is the caller's.
 */
export function PagedTable<T>({
  list,
  isLoading,
  loadingLabel,
  error,
  onRetry,
  errorView,
  empty,
  summary,
  pagerLabel,
  onPage,
  children,
  after,
}: {
  list: PageOf<T> | undefined;
  isLoading: boolean;
  loadingLabel?: string;
  error?: unknown;
  onRetry?: () => void;
  /** Shown instead of the load error (a search the API refused, explained at its fields). */
  errorView?: ReactNode;
  empty: ReactNode;
  summary?: ReactNode;
  pagerLabel?: string;
  onPage: (page: number) => void;
  children: (items: T[]) => ReactNode;
  /** What follows the pager while the list has rows. */
  after?: ReactNode;
}) {
  return (
    <>
      {isLoading ? <Loading label={loadingLabel} /> : null}
      {errorView ?? (error ? <LoadError error={error} onRetry={onRetry} /> : null)}
      {list && list.items.length === 0 ? empty : null}
      {list && list.items.length > 0 ? (
        <>
          {summary}
          {children(list.items)}
          <Pager page={list.page} perPage={list.per_page} total={list.total} onPage={onPage} label={pagerLabel} />
          {after}
        </>
      ) : null}
    </>
  );
}

/** A list answer (`{ sales: [...], page, per_page, total }`) as the page `PagedTable` draws. */
export function pageOf<D extends { page: number; per_page: number; total: number }, T>(
  data: D | undefined,
  items: (data: D) => T[],
): PageOf<T> | undefined {
  return data ? { items: items(data), page: data.page, per_page: data.per_page, total: data.total } : undefined;
}
