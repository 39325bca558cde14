import { type FormEvent, useState } from 'react';
import { useLocation, useSearchParams } from 'react-router';
import { Notice } from '../../../components/ui/form-alert';
import { PagedTable, pageOf } from '../../../components/ui/paged-table';
import { usePageParam } from '../../../components/ui/pager';
import { SelectField } from '../../../components/ui/select-field';
import { TextInput } from '../../../components/ui/text-input';
import { asSelect, formFields } from '../../../lib/form-fields';
import { useCan } from '../../../lib/permissions';
import { withParams } from '../../../lib/search-params';
import { AFFILIATIONS } from '../api/profile';
import { useUserSearch } from '../api/use-user-search';
import { MemberCsvDownload } from '../components/member-csv-download';
import { UserTable } from '../components/user-table';

const SORTS = [
  { value: '-created_at', label: '登録の新しい順' },
  { value: 'created_at', label: '登録の古い順' },
  { value: 'kana', label: 'フリガナ順（五十音）' },
  { value: 'name', label: '姓の順' },
  { value: 'email', label: 'メールアドレス順' },
  { value: '-purchases', label: '購入回数の多い順' },
  { value: 'purchases', label: '購入回数の少ない順' },
  { value: '-paid_total', label: '購入金額の多い順' },
  { value: 'paid_total', label: '購入金額の少ない順' },
  { value: '-last_purchase', label: '最終購入の新しい順' },
  { value: 'last_purchase', label: '最終購入の古い順' },
];

type UserFilters = { name: string; email: string; affiliations: string };
const LABELS: UserFilters = { name: '氏名・フリガナ（一部）', email: 'メールアドレス（一部）', affiliations: '所属' };

/** ユーザー検索: a part of the name or kana, of the e-mail, and the affiliation. */
function UserSearch({
  form,
  onChange,
  onSubmit,
}: {
  form: UserFilters;
  onChange: (form: UserFilters) => void;
  onSubmit: (event: FormEvent) => void;
}) {
  const field = formFields(form, onChange, {}, LABELS);
  return (
    <search aria-label="ユーザー検索">
      <form className="search" onSubmit={onSubmit}>
        <TextInput {...field('name')} />
        <TextInput {...field('email')} />
        <SelectField {...asSelect(field('affiliations'))} options={AFFILIATIONS} placeholder="すべて" />
        <div className="search-actions">
          <button type="submit" className="button primary">
            検索する
          </button>
        </div>
      </form>
    </search>
  );
}

function SortSelect({ sort, onSort }: { sort: string; onSort: (sort: string) => void }) {
  return (
    <div className="field inline">
      <label htmlFor="user-sort">並び順</label>
      <select id="user-sort" value={sort} onChange={(e) => onSort(e.currentTarget.value)}>
        {SORTS.map((s) => (
          <option key={s.value} value={s.value}>
            {s.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** /admin/users: search by name (姓 or 名), e-mail and affiliation. */
export function AdminUserListPage() {
  const can = useCan();
  const [params, setParams] = useSearchParams();
  const flash = (useLocation().state as { message?: string } | null)?.message;
  const [form, setForm] = useState<UserFilters>({
    name: params.get('name') ?? '',
    email: params.get('email') ?? '',
    affiliations: params.get('affiliations') ?? '',
  });
  const sort = params.get('sort') ?? '-created_at';
  const { data, error, isLoading, mutate: reload } = useUserSearch(params);
  const search = (event: FormEvent) => {
    event.preventDefault();
    setParams(withParams(new URLSearchParams({ sort }), { ...form, page: '' }));
  };
  const { setPage } = usePageParam();
  return (
    <section className="card">
      <h1>ユーザー一覧</h1>
      {flash ? <Notice>{flash}</Notice> : null}
      <UserSearch form={form} onChange={setForm} onSubmit={search} />
      <SortSelect sort={sort} onSort={(next) => setParams(withParams(params, { sort: next, page: '' }))} />
      {can('members:export') ? <MemberCsvDownload params={params} disabled={!data || data.users.length === 0} /> : null}
      <PagedTable
        list={pageOf(data, (d) => d.users)}
        isLoading={isLoading}
        error={error}
        onRetry={() => void reload()}
        empty={<p>条件に合うユーザーはいません。</p>}
        summary={
          <p className="small">
            全{(data?.total ?? 0).toLocaleString('ja-JP')}件{data?.total_capped ? '以上' : ''}
          </p>
        }
        onPage={setPage}
      >
        {(users) => <UserTable users={users} />}
      </PagedTable>
    </section>
  );
}
