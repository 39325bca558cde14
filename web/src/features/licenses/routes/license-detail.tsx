import { Link, useParams } from 'react-router';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { useAuth } from '../../../lib/auth-store';
import { isStaff } from '../../../lib/permissions';
import { useHoldings, useLicense } from '../api/licenses';
import { HoldingState } from '../components/holding-state';
import { LicenseView } from '../components/license-view';

/** /licenses/{id}: what a buyer needs to decide. */
export function LicenseDetailPage() {
  const { id } = useParams();
  const { data, error, isLoading, mutate } = useLicense(id);
  const me = useAuth().users[0];
  const holdings = useHoldings(me && !isStaff(me) ? me.id : undefined);
  const holding = data ? holdings.byLicense.get(data.license.id) : undefined;
  return (
    <section className="card">
      {/* One h1 in every state: the licence's name once it is here. */}
      {data ? null : (
        <h1>{(error as { status?: number } | undefined)?.status === 404 ? 'ライセンスが見つかりません' : 'ライセンス詳細'}</h1>
      )}
      {isLoading ? <Loading /> : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {data ? (
        <>
          <h1 className="visually-hidden">{data.license.name}</h1>
          <LicenseView
            name={data.license.name}
            price={data.license.price}
            description={data.license.description}
            pictures={data.license.pictures.map((p, i) => ({ url: p.url, alt: `${data.license.name}の画像${i + 1}` }))}
          />
          {holding ? (
            <HoldingState holding={holding} historyUrl={me ? `/users/${me.id}` : '/login'} />
          ) : holdings.isLoading ? null : (
            <div className="actions">
              <Link to={`/licenses/${data.license.id}/procedure`} className="button primary">
                購入手続きへ進む
              </Link>
            </div>
          )}
        </>
      ) : null}
      <p className="small">
        <Link to="/licenses">ライセンス一覧へ戻る</Link>
      </p>
    </section>
  );
}
