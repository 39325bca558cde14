import { Link, useLocation, useParams } from 'react-router';
import { Notice } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { formatDateTime } from '../../../lib/format';
import { useLicense } from '../api/licenses';
import { LicenseView } from '../components/license-view';

/** /admin/licenses/{id} */
export function AdminLicenseDetailPage() {
  const { id } = useParams();
  const flash = (useLocation().state as { message?: string } | null)?.message;
  const { data, error, isLoading, mutate } = useLicense(id);
  return (
    <section className="card">
      <h1>ライセンス詳細</h1>
      {flash ? <Notice>{flash}</Notice> : null}
      {isLoading ? <Loading /> : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {data ? (
        <>
          <LicenseView
            name={data.license.name}
            price={data.license.price}
            description={data.license.description}
            pictures={data.license.pictures.map((p, i) => ({ url: p.url, alt: `${data.license.name}の画像${i + 1}` }))}
          />
          <dl className="summary">
            <dt>ID</dt>
            <dd>{data.license.id}</dd>
            <dt>登録日時</dt>
            <dd>{formatDateTime(data.license.created_at)}</dd>
            <dt>更新日時</dt>
            <dd>{formatDateTime(data.license.updated_at)}</dd>
          </dl>
          <div className="actions">
            <Link to="/admin/licenses" className="button">
              一覧へ戻る
            </Link>
            <Link to={`/admin/licenses/issue?license_id=${data.license.id}`} className="button">
              このライセンスの売上を見る
            </Link>
            <Link to={`/admin/licenses/${data.license.id}/edit`} className="button primary">
              編集する
            </Link>
          </div>
        </>
      ) : null}
    </section>
  );
}
