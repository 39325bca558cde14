import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { useConfirm } from '../../../components/ui/use-confirm';
import { formatDateTime } from '../../../lib/japan-time';
import { useCan } from '../../../lib/permissions';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { deleteLicense, useLicense } from '../api/licenses';
import { LicenseView } from '../components/license-view';

/** /admin/licenses/{id} */
export function AdminLicenseDetailPage() {
  const { id } = useParams();
  const flash = (useLocation().state as { message?: string } | null)?.message;
  const { data, error, isLoading, mutate } = useLicense(id);
  const navigate = useNavigate();
  const { busy, message, run } = useFormSubmit();
  const { confirm, dialog } = useConfirm();
  const remove = async () => {
    if (!data) return;
    const yes = await confirm({
      title: 'ライセンスを削除します',
      confirmLabel: '削除する',
      danger: true,
      body: <p>「{data.license.name}」を削除します。元に戻せません。</p>,
    });
    if (!yes) return;
    void run(async () => {
      const res = await deleteLicense(data.license.id);
      navigate('/admin/licenses', { state: { message: res.message } });
    });
  };
  return (
    <section className="card">
      <h1>ライセンス詳細</h1>
      {flash ? <Notice>{flash}</Notice> : null}
      <FormAlert message={message} />
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
            <dt>公開</dt>
            <dd>{data.license.published ? '公開（会員に表示し、購入できる）' : '非公開（会員には表示しない）'}</dd>
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
            <EditActions license={data.license} busy={busy} onRemove={remove} />
          </div>
          <DeleteRule deletable={data.license.deletable} />
        </>
      ) : null}
      {dialog}
      <LoadingOverlay show={busy} label="削除しています" />
    </section>
  );
}

/** 編集する・削除する, for a role that may edit licences (licenses:update). */
function EditActions({
  license,
  busy,
  onRemove,
}: {
  license: { id: number; deletable?: boolean };
  busy: boolean;
  onRemove: () => void;
}) {
  const can = useCan();
  if (!can('licenses:update')) return null;
  return (
    <>
      <Link to={`/admin/licenses/${license.id}/edit`} className="button primary">
        編集する
      </Link>
      <button
        type="button"
        className="button danger"
        onClick={onRemove}
        disabled={busy || license.deletable === false}
        aria-describedby="delete-rule"
      >
        削除する
      </button>
    </>
  );
}

function DeleteRule({ deletable }: { deletable?: boolean }) {
  const can = useCan();
  if (!can('licenses:update')) return null;
  return (
    <p id="delete-rule" className="small">
      {deletable === false
        ? 'このライセンスは購入手続きが行われたため削除できません。販売をやめるときは編集で「非公開」にしてください。'
        : '購入手続きが行われたライセンスは削除できません。販売をやめるときは編集で「非公開」にしてください。'}
    </p>
  );
}
