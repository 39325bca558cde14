import { Link, useLocation, useSearchParams } from 'react-router';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { PagedTable, pageOf } from '../../../components/ui/paged-table';
import { usePageParam } from '../../../components/ui/pager';
import { useLicenses, useSalesCounts } from '../api/licenses';
import { LicenseTable } from '../components/license-table';
import { useLicenseListActions } from '../hooks/use-license-list-actions';
import '../licenses.css';
import { useCan } from '../../../lib/permissions';

const SORTS = [
  { value: 'position', label: '表示順（会員の一覧と同じ）' },
  { value: '-id', label: '新しい順' },
  { value: 'id', label: '古い順' },
  { value: 'name', label: '名前順' },
  { value: 'price', label: '価格の安い順' },
  { value: '-price', label: '価格の高い順' },
  { value: '-updated_at', label: '更新日時の新しい順' },
];

/** 並び順, kept in the address. */
function SortSelect({ sort, onSort }: { sort: string; onSort: (sort: string) => void }) {
  return (
    <div className="field inline">
      <label htmlFor="sort">並び順</label>
      <select id="sort" value={sort} onChange={(e) => onSort(e.currentTarget.value)}>
        {SORTS.map((s) => (
          <option key={s.value} value={s.value}>
            {s.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** /admin/licenses: every licence, in the members' display order unless sorted otherwise. */
export function AdminLicenseListPage() {
  const can = useCan();
  const [params, setParams] = useSearchParams();
  const { page, setPage } = usePageParam();
  const sort = SORTS.some((s) => s.value === params.get('sort')) ? (params.get('sort') as string) : 'position';
  const { data, error, isLoading, mutate } = useLicenses(page, 20, sort);
  const counts = useSalesCounts();
  const flash = (useLocation().state as { message?: string } | null)?.message;
  const actions = useLicenseListActions({ data, mutate, setPage });
  const ordered = sort === 'position';
  return (
    <section className="card">
      <div className="heading-row">
        <h1>ライセンス一覧</h1>
        {can('licenses:update') ? (
          <Link to="/admin/licenses/create" className="button primary">
            新規登録
          </Link>
        ) : null}
      </div>
      {flash ? <Notice>{flash}</Notice> : null}
      <SortSelect sort={sort} onSort={(next) => setParams({ sort: next })} />
      <p className="small">
        {!can('licenses:update')
          ? '並び順の「表示順」は、会員のライセンス一覧に並ぶ順です。'
          : ordered
            ? '会員のライセンス一覧はこの順に並びます。「上へ」「下へ」で入れ替えられます。'
            : '表示順を変えるには、並び順で「表示順」を選んでください。'}
      </p>
      {actions.notice ? <Notice>{actions.notice}</Notice> : null}
      <FormAlert message={actions.message} errors={actions.errors} />
      <PagedTable
        list={pageOf(data, (d) => d.licenses)}
        isLoading={isLoading}
        error={error}
        onRetry={() => void mutate()}
        empty={
          <Notice>
            ライセンスはまだ登録されていません。{can('licenses:update') ? '「新規登録」から登録してください。' : ''}
          </Notice>
        }
        onPage={setPage}
      >
        {(licenses) => (
          <>
            <LicenseTable
              licenses={licenses}
              offset={data ? (data.page - 1) * data.per_page : 0}
              total={data?.total ?? 0}
              ordered={ordered}
              counts={counts}
              busy={actions.busy}
              onMove={actions.move}
              onTogglePublished={(license) => void actions.togglePublished(license)}
            />
            {counts.error ? <p className="small">販売数を読み込めませんでした。</p> : null}
          </>
        )}
      </PagedTable>
      {actions.dialog}
    </section>
  );
}
