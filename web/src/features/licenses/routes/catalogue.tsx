import { Link, useSearchParams } from 'react-router';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { Pager } from '../../../components/ui/pager';
import { formatPrice } from '../../../lib/format';
import { useLicenses } from '../api/licenses';

/** /licenses: the member catalogue. */
export function CataloguePage() {
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const { data, error, isLoading, mutate } = useLicenses(page);
  return (
    <section>
      <h1>ライセンス一覧</h1>
      {isLoading ? <Loading /> : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {data && data.licenses.length === 0 ? <p className="card">現在お申し込みいただけるライセンスはありません。</p> : null}
      {data ? (
        <>
          <ul className="cards">
            {data.licenses.map((license) => (
              <li key={license.id} className="license-card">
                <Link to={`/licenses/${license.id}`}>
                  {license.pictures[0] ? (
                    <img src={license.pictures[0].thumbnail_url} alt="" width={480} height={360} loading="lazy" />
                  ) : (
                    <div className="card-noimage" aria-hidden="true">
                      画像なし
                    </div>
                  )}
                  <span className="card-name">{license.name}</span>
                  <span className="card-price">{formatPrice(license.price)}</span>
                </Link>
              </li>
            ))}
          </ul>
          <Pager page={data.page} perPage={data.per_page} total={data.total} onPage={(p) => setParams({ page: String(p) })} />
        </>
      ) : null}
    </section>
  );
}
