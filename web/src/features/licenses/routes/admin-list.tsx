import { useEffect, useRef, useState } from 'react';
import { Link, useLocation, useSearchParams } from 'react-router';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { Pager, usePageParam } from '../../../components/ui/pager';
import { api } from '../../../lib/api';
import { formatPrice } from '../../../lib/format';
import { formatDateTime } from '../../../lib/japan-time';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { type License, useLicenses, useSalesCounts } from '../api/licenses';
import '../licenses.css';
import { useConfirm } from '../../../components/ui/use-confirm';

const SORTS = [
  { value: 'position', label: '表示順（会員の一覧と同じ）' },
  { value: '-id', label: '新しい順' },
  { value: 'id', label: '古い順' },
  { value: 'name', label: '名前順' },
  { value: 'price', label: '価格の安い順' },
  { value: '-price', label: '価格の高い順' },
  { value: '-updated_at', label: '更新日時の新しい順' },
];

const moveButtonId = (id: number, direction: 'up' | 'down') => `license-${id}-move-${direction}`;

/** /admin/licenses: every licence, in the members' display order unless sorted otherwise. */
export function AdminLicenseListPage() {
  const { confirm, dialog } = useConfirm();
  const [params, setParams] = useSearchParams();
  const { page, setPage } = usePageParam();
  const sort = SORTS.some((s) => s.value === params.get('sort')) ? (params.get('sort') as string) : 'position';
  const { data, error, isLoading, mutate } = useLicenses(page, 20, sort);
  const counts = useSalesCounts();
  const flash = (useLocation().state as { message?: string } | null)?.message;
  const action = useFormSubmit();
  const [notice, setNotice] = useState('');
  const ordered = sort === 'position';
  const total = data?.total ?? 0;
  const offset = data ? (data.page - 1) * data.per_page : 0;

  const move = (license: License, direction: 'up' | 'down') => {
    setNotice('');
    void action.run(async () => {
      const { ids } = await api<{ ids: number[] }>(`/api/licenses/${license.id}/move`, { method: 'POST', body: { direction } });
      const place = ids.indexOf(license.id) + 1;
      const page = Math.floor((place - 1) / (data?.per_page ?? 20)) + 1;
      setNotice(`「${license.name}」を${place}番目にしました。`);
      if (page !== data?.page) setPage(page);
      await mutate();
      refocus.current = { id: license.id, direction };
    });
  };

  // The moved licence keeps the focus (its button moved with its row), or its other button at an end —
  // once the list shows the new order and the buttons are enabled again (a disabled button loses focus).
  const refocus = useRef<{ id: number; direction: 'up' | 'down' } | null>(null);
  useEffect(() => {
    const pending = refocus.current;
    if (!pending || action.busy || !data) return;
    refocus.current = null;
    const same = document.getElementById(moveButtonId(pending.id, pending.direction)) as HTMLButtonElement | null;
    const other = document.getElementById(moveButtonId(pending.id, pending.direction === 'up' ? 'down' : 'up'));
    (same && !same.disabled ? same : other)?.focus();
  });

  const togglePublished = async (license: License) => {
    const published = !license.published;
    if (
      !published &&
      !(await confirm({
        title: 'ライセンスを非公開にします',
        confirmLabel: '非公開にする',
        body: <p>「{license.name}」を非公開にします。会員の一覧に表示されなくなり、開いている決済ページは無効になります。</p>,
      }))
    ) {
      return;
    }
    setNotice('');
    void action.run(async () => {
      const { message } = await api<{ message: string }>(`/api/licenses/${license.id}/published`, {
        method: 'PUT',
        body: { published },
      });
      setNotice(message);
      await mutate();
    });
  };

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
      <p className="small">
        {ordered
          ? '会員のライセンス一覧はこの順に並びます。「上へ」「下へ」で入れ替えられます。'
          : '表示順を変えるには、並び順で「表示順」を選んでください。'}
      </p>
      {notice ? <Notice>{notice}</Notice> : null}
      <FormAlert message={action.message} errors={action.errors} />
      {isLoading ? <Loading /> : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {data && data.licenses.length === 0 ? (
        <Notice>ライセンスはまだ登録されていません。「新規登録」から登録してください。</Notice>
      ) : null}
      {data && data.licenses.length > 0 ? (
        <>
          <div className="table-wrap">
            <table className="table license-table">
              <caption className="visually-hidden">ライセンスの一覧</caption>
              <thead>
                <tr>
                  {ordered ? <th scope="col">表示順</th> : null}
                  <th scope="col">ID</th>
                  <th scope="col">画像</th>
                  <th scope="col">ライセンス名</th>
                  <th scope="col">価格</th>
                  <th scope="col">販売数</th>
                  <th scope="col">公開</th>
                  <th scope="col">更新日時</th>
                </tr>
              </thead>
              <tbody>
                {data.licenses.map((license, index) => {
                  const place = offset + index + 1;
                  const sold = counts.byLicense.get(license.id);
                  return (
                    <tr key={license.id}>
                      {ordered ? (
                        <td className="license-order">
                          <span className="license-place">{place}</span>
                          <span className="license-move">
                            <button
                              type="button"
                              id={moveButtonId(license.id, 'up')}
                              className="button small"
                              aria-label={`「${license.name}」を上へ（いま${place}番目）`}
                              disabled={action.busy || place === 1}
                              onClick={() => move(license, 'up')}
                            >
                              上へ
                            </button>
                            <button
                              type="button"
                              id={moveButtonId(license.id, 'down')}
                              className="button small"
                              aria-label={`「${license.name}」を下へ（いま${place}番目）`}
                              disabled={action.busy || place === total}
                              onClick={() => move(license, 'down')}
                            >
                              下へ
                            </button>
                          </span>
                        </td>
                      ) : null}
                      <td>{license.id}</td>
                      <td>
                        {license.pictures[0] ? (
                          <img src={license.pictures[0].thumbnail_url} alt="" width={96} height={72} />
                        ) : (
                          '—'
                        )}
                      </td>
                      <td>
                        <Link to={`/admin/licenses/${license.id}`}>{license.name}</Link>
                      </td>
                      <td>{formatPrice(license.price)}</td>
                      <td>
                        {counts.error ? (
                          '—'
                        ) : counts.isLoading ? (
                          <span className="small">読み込み中…</span>
                        ) : (
                          <>
                            {(sold?.count ?? 0).toLocaleString('ja-JP')}件
                            {sold?.refunded_count ? (
                              <div className="small">返金 {sold.refunded_count.toLocaleString('ja-JP')}件</div>
                            ) : null}
                          </>
                        )}
                      </td>
                      <td className="license-published">
                        {license.published ? <span>公開</span> : <span className="tag">非公開</span>}
                        <button
                          type="button"
                          className="button small"
                          aria-label={license.published ? `「${license.name}」を非公開にする` : `「${license.name}」を公開する`}
                          disabled={action.busy}
                          onClick={() => void togglePublished(license)}
                        >
                          {license.published ? '非公開にする' : '公開する'}
                        </button>
                      </td>
                      <td>{formatDateTime(license.updated_at)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          {counts.error ? <p className="small">販売数を読み込めませんでした。</p> : null}
          <Pager page={data.page} perPage={data.per_page} total={data.total} onPage={setPage} />
        </>
      ) : null}
      {dialog}
    </section>
  );
}
