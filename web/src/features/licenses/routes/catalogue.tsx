import { useDeferredValue } from 'react';
import { Link } from 'react-router';
import { SaleBadge } from '../../../components/sale-state';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { Pager, usePageParam } from '../../../components/ui/pager';
import { useAuth } from '../../../lib/auth-store';
import { formatPrice } from '../../../lib/format';
import { isStaff } from '../../../lib/permissions';
import { PhraseBreaks } from '../../../lib/phrase-breaks';
import { useHoldings, useLicenses } from '../api/licenses';
import { HoldingBadge } from '../components/holding-state';

/** Cards drawn while the page loads, the size of real ones: nothing below them jumps when they arrive. */
const SKELETON_CARDS = 3;

/** /licenses: the member catalogue. */
export function CataloguePage() {
  const { page, setPage } = usePageParam();
  const { data: latest, error, isLoading, mutate } = useLicenses(page);
  const me = useAuth().users[0];
  // 購入済み / コンビニ支払い待ち: the member's own list, beside the shared (cached) catalogue.
  const holdings = useHoldings(me && !isStaff(me) ? me.id : undefined);
  // The cards are drawn as a background render React can pause, so taps are answered while they
  // are laid out (a data update from swr would otherwise hold the main thread in one long task).
  const data = useDeferredValue(latest);
  const loading = isLoading || (latest !== undefined && data === undefined);
  return (
    <section>
      <h1>ライセンス一覧</h1>
      {loading ? (
        <>
          <div className="visually-hidden">
            <Loading />
          </div>
          <ul className="cards" aria-hidden="true">
            {Array.from({ length: SKELETON_CARDS }, (_, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: placeholders without identity
              <li key={i} className="card-skeleton">
                <span className="card-link">
                  <span className="card-noimage" />
                  <span className="card-name">&nbsp;</span>
                  <span className="card-price">&nbsp;</span>
                </span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {data && data.licenses.length === 0 ? <p className="card">現在お申し込みいただけるライセンスはありません。</p> : null}
      {data ? (
        <>
          <ul className="cards">
            {data.licenses.map((license, index) => (
              <li key={license.id} className="license-card">
                <Link to={`/licenses/${license.id}`} className="card-link">
                  {license.pictures[0] ? (
                    // The first card's picture is the page's largest paint: fetched at once; the rest as they scroll in.
                    <img
                      src={license.pictures[0].thumbnail_url}
                      alt=""
                      width={480}
                      height={360}
                      loading={index === 0 ? 'eager' : 'lazy'}
                      fetchPriority={index === 0 ? 'high' : 'auto'}
                    />
                  ) : (
                    <span className="card-noimage" aria-hidden="true">
                      画像なし
                    </span>
                  )}
                  <span className="card-name phrase-name">
                    <PhraseBreaks text={license.name} />
                  </span>
                  <span className="card-price">{formatPrice(license.price)}</span>
                  <SaleBadge terms={license} />
                  <HoldingBadge holding={holdings.byLicense.get(license.id)} />
                </Link>
              </li>
            ))}
          </ul>
          <Pager page={data.page} perPage={data.per_page} total={data.total} onPage={setPage} />
        </>
      ) : null}
    </section>
  );
}
