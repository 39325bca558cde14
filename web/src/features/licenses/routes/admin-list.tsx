import { Link, useLocation, useSearchParams } from 'react-router';
import { Notice } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { Pager, usePageParam } from '../../../components/ui/pager';
import { formatDateTime, formatPrice } from '../../../lib/format';
import { useLicenses } from '../api/licenses';

const SORTS = [
  { value: '-id', label: '新しい順' },
  { value: 'id', label: '古い順' },
  { value: 'name', label: '名前順' },
  { value: 'price', label: '価格の安い順' },
  { value: '-price', label: '価格の高い順' },
  { value: '-updated_at', label: '更新日時の新しい順' },
];

/** /admin/licenses */
export function AdminLicenseListPage() {
  const [params, setParams] = useSearchParams();
  const { page, setPage } = usePageParam();
  const sort = SORTS.some((s) => s.value === params.get('sort')) ? (params.get('sort') as string) : '-id';
  const { data, error, isLoading, mutate } = useLicenses(page, 20, sort);
  const flash = (useLocation().state as { message?: string } | null)?.message;
  return (
    <section className="card">
      <div className="heading-row">
        <h1>ライセンス一覧</h1>
        <Link to="/admin/licenses/create" className="button primary">
          新規登録
        </Link>
      </div>
      {flash ? <Notice>{flash}</Notice> : null}
      <div className="field inline">
        <label htmlFor="sort">並び順</label>
        <select id="sort" value={sort} onChange={(e) => setParams({ sort: e.currentTarget.value })}>
          {SORTS.map((s) => (
            <option key={s.value} value={s.value}>
              {s.label}
            </option>
          ))}
        </select>
      </div>
      {isLoading ? <Loading /> : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {data && data.licenses.length === 0 ? (
        <Notice>ライセンスはまだ登録されていません。「新規登録」から登録してください。</Notice>
      ) : null}
      {data && data.licenses.length > 0 ? (
        <>
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">ID</th>
                  <th scope="col">画像</th>
                  <th scope="col">ライセンス名</th>
                  <th scope="col">価格</th>
                  <th scope="col">公開</th>
                  <th scope="col">更新日時</th>
                </tr>
              </thead>
              <tbody>
                {data.licenses.map((license) => (
                  <tr key={license.id}>
                    <td>{license.id}</td>
                    <td>
                      {license.pictures[0] ? <img src={license.pictures[0].thumbnail_url} alt="" width={96} height={72} /> : '—'}
                    </td>
                    <td>
                      <Link to={`/admin/licenses/${license.id}`}>{license.name}</Link>
                    </td>
                    <td>{formatPrice(license.price)}</td>
                    <td>{license.published ? '公開' : <span className="tag">非公開</span>}</td>
                    <td>{formatDateTime(license.updated_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={data.page} perPage={data.per_page} total={data.total} onPage={setPage} />
        </>
      ) : null}
    </section>
  );
}
