import { Link, useParams } from 'react-router';
import { QuotationForm } from '../../../components/quotation-form';
import { onSale, SaleBadge, SaleStateNotice } from '../../../components/sale-state';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { useAuth } from '../../../lib/auth-store';
import { usePageTitle } from '../../../lib/page-title';
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
  const notFound = (error as { status?: number } | undefined)?.status === 404;
  const heading = data ? data.license.name : notFound ? 'ライセンスが見つかりません' : 'ライセンス詳細';
  usePageTitle(data?.license.name);
  return (
    <section className="card">
      {/* One h1 element in every state (focus stays on it): the licence's name once it is here. */}
      <h1 className={data ? 'visually-hidden' : undefined}>{heading}</h1>
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
          <SaleBadge terms={data.license} />
          {holding ? (
            <HoldingState holding={holding} historyUrl={me ? `/users/${me.id}` : '/login'} />
          ) : holdings.isLoading ? null : onSale(data.license) ? (
            <div className="actions">
              <Link to={`/licenses/${data.license.id}/procedure`} className="button primary">
                購入手続きへ進む
              </Link>
            </div>
          ) : (
            <SaleStateNotice terms={data.license} />
          )}
          {me && me.role !== 'admin' && !holding ? <QuotationForm licenseId={data.license.id} /> : null}
        </>
      ) : null}
      {/* An error's own way on (LoadError) already links the catalogue. */}
      {error ? null : (
        <p className="small">
          <Link to="/licenses">ライセンス一覧へ戻る</Link>
        </p>
      )}
    </section>
  );
}
