import { type FormEvent, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { Pager } from '../../../components/ui/pager';
import { SelectField } from '../../../components/ui/select-field';
import { TextInput } from '../../../components/ui/text-input';
import { api } from '../../../lib/api';
import { formatDateTime, formatPrice } from '../../../lib/format';
import { withParams } from '../../../lib/search-params';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { type ExportState, useExport, useLicenseOptions, useSalesSearch } from '../api';

const STATUSES = [
  { value: '0', label: '出力待ち' },
  { value: '1', label: '処理中' },
  { value: '2', label: '登録済み' },
];
const FILTERS = ['license_id', 'status', 'q', 'paid_from', 'paid_to'] as const;
const EXPORT_STATE: Record<ExportState['state'], string> = { queued: '待機中', running: '作成中', done: '完了', failed: '失敗' };

/** /admin/licenses/issue: sales of a licence, their status (出力待ち → 処理中 → 登録済み) and the CSV export. */
export function IssuePage() {
  const [params, setParams] = useSearchParams();
  const [form, setForm] = useState(
    () => Object.fromEntries(FILTERS.map((f) => [f, params.get(f) ?? ''])) as Record<(typeof FILTERS)[number], string>,
  );
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [notice, setNotice] = useState('');
  const [exportId, setExportId] = useState<string | null>(null);
  const [encoding, setEncoding] = useState('utf-8');
  const licenses = useLicenseOptions();
  const { data, error, isLoading, mutate } = useSalesSearch(params);
  const exportState = useExport(exportId);
  const { busy, message, errors, run } = useFormSubmit();
  const licenseId = params.get('license_id');

  const search = (event: FormEvent) => {
    event.preventDefault();
    setSelected(new Set());
    setParams(withParams(new URLSearchParams(), { ...form, page: '1' }));
  };
  const toggle = (id: number) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
  };
  const advance = (status: 1 | 2) => {
    const chosen =
      data?.sales.filter((s) => selected.has(s.id) && s.status === status - 1 && !s.refunded_at).map((s) => s.id) ?? [];
    const target = status === 1 ? '処理中' : '登録済み';
    const scope = chosen.length
      ? `選択した${chosen.length}件`
      : `このライセンスの「${status === 1 ? '出力待ち' : '処理中'}」の売上すべて`;
    if (!window.confirm(`${scope}を「${target}」にします。よろしいですか？`)) return;
    void run(async () => {
      const res = await api<{ message: string }>('/api/sales/update', {
        method: 'POST',
        body: { status, licenseId: Number(licenseId), ...(chosen.length ? { saleIds: chosen } : {}) },
      });
      setNotice(res.message);
      setSelected(new Set());
      await mutate();
    });
  };
  const startExport = () =>
    run(async () => {
      const filters = Object.fromEntries(FILTERS.map((f) => [f, params.get(f) ?? '']).filter(([, v]) => v !== ''));
      const res = await api<{ export: ExportState }>('/api/exports', { method: 'POST', body: { ...filters, encoding } });
      setExportId(res.export.id);
    });

  const selectedOf = (status: number) =>
    data?.sales.filter((s) => selected.has(s.id) && s.status === status && !s.refunded_at).length ?? 0;
  const current = exportState.data?.export;
  return (
    <section className="card">
      <h1>ライセンス発行</h1>
      <p className="small">
        購入されたライセンスの状態（出力待ち → 処理中 → 登録済み）を進め、研修管理システム用のCSVを作成します。
      </p>
      {notice ? <Notice>{notice}</Notice> : null}
      <FormAlert message={message} errors={errors} />
      <search aria-label="売上の検索">
        <form className="search" onSubmit={search}>
          <SelectField
            label="ライセンス"
            name="license_id"
            value={form.license_id}
            placeholder="すべて"
            options={(licenses.data?.licenses ?? []).map((l) => ({ value: String(l.id), label: l.name }))}
            onChange={(license_id) => setForm({ ...form, license_id })}
          />
          <SelectField
            label="状態"
            name="status"
            value={form.status}
            placeholder="すべて"
            options={STATUSES}
            onChange={(status) => setForm({ ...form, status })}
          />
          <TextInput label="購入者（氏名・メールの一部）" name="q" value={form.q} onInput={(q) => setForm({ ...form, q })} />
          <TextInput
            label="購入日（から）"
            name="paid_from"
            type="date"
            value={form.paid_from}
            onInput={(paid_from) => setForm({ ...form, paid_from })}
          />
          <TextInput
            label="購入日（まで）"
            name="paid_to"
            type="date"
            value={form.paid_to}
            onInput={(paid_to) => setForm({ ...form, paid_to })}
          />
          <div className="search-actions">
            <button type="submit" className="button primary">
              検索する
            </button>
          </div>
        </form>
      </search>

      <div className="actions toolbar">
        <button type="button" className="button" disabled={!licenseId || busy} onClick={() => void advance(1)}>
          {selectedOf(0) ? `選択した${selectedOf(0)}件を処理中にする` : 'このライセンスの出力待ちをすべて処理中にする'}
        </button>
        <button type="button" className="button" disabled={!licenseId || busy} onClick={() => void advance(2)}>
          {selectedOf(1) ? `選択した${selectedOf(1)}件を登録済みにする` : 'このライセンスの処理中をすべて登録済みにする'}
        </button>
        {!licenseId ? <span className="small">状態を進めるには、ライセンスを選んで検索してください。</span> : null}
      </div>

      {isLoading ? <Loading /> : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {data && data.sales.length === 0 ? <p>条件に合う売上はありません。</p> : null}
      {data && data.sales.length > 0 ? (
        <>
          <p className="small">全{data.total}件</p>
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">
                    <span className="visually-hidden">選択</span>
                  </th>
                  <th scope="col">購入日時</th>
                  <th scope="col">購入者</th>
                  <th scope="col">ライセンス</th>
                  <th scope="col">金額</th>
                  <th scope="col">状態</th>
                </tr>
              </thead>
              <tbody>
                {data.sales.map((sale) => (
                  <tr key={sale.id}>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`${sale.user.last_name} ${sale.user.first_name}さんの売上を選択`}
                        checked={selected.has(sale.id)}
                        disabled={Boolean(sale.refunded_at) || sale.status === 2}
                        onChange={() => toggle(sale.id)}
                      />
                    </td>
                    <td>{formatDateTime(sale.paid_at)}</td>
                    <td>
                      {sale.user_id ? (
                        <Link to={`/admin/users/${sale.user_id}`}>
                          {sale.user.last_name} {sale.user.first_name}
                        </Link>
                      ) : (
                        `${sale.user.last_name} ${sale.user.first_name}（退会）`
                      )}
                      <br />
                      <span className="small">{sale.user.email}</span>
                    </td>
                    <td>{sale.license_name}</td>
                    <td>{formatPrice(sale.amount)}</td>
                    <td>{sale.refunded_at ? <span className="tag">返金済み</span> : sale.status_label}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            page={data.page}
            perPage={data.per_page}
            total={data.total}
            onPage={(page) => setParams(withParams(params, { page: String(page) }))}
          />
        </>
      ) : null}

      <section className="subsection" aria-labelledby="export-heading">
        <h2 id="export-heading">研修管理システム用CSV</h2>
        <p className="small">検索条件に合う「出力待ち」「処理中」の売上（返金済みを除く）を、1件1行で書き出します。</p>
        <div className="actions">
          <div className="field inline">
            <label htmlFor="encoding">文字コード</label>
            <select id="encoding" value={encoding} onChange={(e) => setEncoding(e.currentTarget.value)}>
              <option value="utf-8">UTF-8（BOM付き）</option>
              <option value="shift_jis">Shift_JIS（古いExcel向け）</option>
            </select>
          </div>
          <button
            type="button"
            className="button primary"
            onClick={() => void startExport()}
            disabled={busy || (current !== undefined && !['done', 'failed'].includes(current.state))}
          >
            CSVを作成する
          </button>
        </div>
        {current ? (
          <p role="status">
            状態：{EXPORT_STATE[current.state]}
            {current.state === 'done' ? `（${current.row_count}件）` : ''}
            {current.state === 'done' && current.download_url ? (
              <>
                {' '}
                <a href={current.download_url} download="data.csv" className="button">
                  data.csv をダウンロード
                </a>
              </>
            ) : null}
            {current.state === 'failed' ? ' 作成に失敗しました。もう一度お試しください。' : ''}
          </p>
        ) : null}
      </section>
      <LoadingOverlay show={busy} label="処理しています" />
    </section>
  );
}
