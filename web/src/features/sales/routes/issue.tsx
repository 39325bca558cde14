import { type FormEvent, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { LoadingOverlay } from '../../../components/ui/loading-overlay';
import { Pager, usePageParam } from '../../../components/ui/pager';
import { SelectField } from '../../../components/ui/select-field';
import { TextInput } from '../../../components/ui/text-input';
import { firstFew, useConfirm } from '../../../components/ui/use-confirm';
import { ApiError, api } from '../../../lib/api';
import { formatPrice } from '../../../lib/format';
import { formatDateTime } from '../../../lib/japan-time';
import { withParams } from '../../../lib/search-params';
import { useFormSubmit } from '../../../lib/use-form-submit';
import {
  type AdminSale,
  SALE_STATUS_OPTIONS,
  type SaleCounts,
  SaleStatus,
  useLicenseOptions,
  useSaleCounts,
  useSalesSearch,
} from '../api';
import { ExportPanel } from '../components/export-panel';
import { orderDetailPath } from '../order-api';

const FILTERS = ['license_id', 'status', 'q', 'paid_from', 'paid_to'] as const;
/** A buyer whose account is gone: why, when known (older sales know only that it is gone). */
const GONE = { withdrew: '（退会済み）', deleted: '（管理者が削除）', unknown: '（アカウント削除済み）' } as const;
const count = (n: number) => `${n.toLocaleString('ja-JP')}件`;
const saleName = (sale: AdminSale) =>
  `${sale.order_number ?? `売上ID ${sale.id}`}（${sale.user.last_name} ${sale.user.first_name}）`;

/** The rows a plain export of the search writes: 出力待ち and 処理中 (of the status filter), no refund. */
function exportRows(status: string | null, counts: SaleCounts | undefined): number {
  if (!counts) return 0;
  if (!status) return counts.export_awaiting + counts.export_in_progress;
  if (status === String(SaleStatus.AwaitingExport)) return counts.export_awaiting;
  if (status === String(SaleStatus.InProgress)) return counts.export_in_progress;
  return 0;
}

/** /admin/licenses/issue: sales of a licence, their status (出力待ち → 処理中 → 登録済み), 差し戻し and the CSV. */
export function IssuePage() {
  const [params, setParams] = useSearchParams();
  const { setPage } = usePageParam();
  const [form, setForm] = useState(
    () => Object.fromEntries(FILTERS.map((f) => [f, params.get(f) ?? ''])) as Record<(typeof FILTERS)[number], string>,
  );
  const [selected, setSelected] = useState<Map<number, AdminSale>>(new Map());
  const [notice, setNotice] = useState('');
  const [reverting, setReverting] = useState<AdminSale[] | null>(null);
  const [reason, setReason] = useState('');
  const licenses = useLicenseOptions();
  const { data, error, isLoading, mutate } = useSalesSearch(params);
  const counts = useSaleCounts(params);
  const { busy, message, errors, run } = useFormSubmit();
  const { confirm, dialog } = useConfirm();
  const licenseId = params.get('license_id');
  // 操作履歴's link: only the sales one status move moved (the search form leaves this view).
  const auditId = params.get('audit_id');
  const filters = Object.fromEntries(FILTERS.map((f) => [f, params.get(f) ?? '']).filter(([, v]) => v !== ''));
  // A search the API refuses (e.g. 購入日 from > to): its messages are shown at the fields, not as a failed load.
  const queryErrors = error instanceof ApiError && error.status === 422 ? error.errors : null;

  const refresh = async () => {
    await Promise.all([mutate(), counts.mutate()]);
  };
  const search = (event: FormEvent) => {
    event.preventDefault();
    setSelected(new Map());
    setParams(withParams(new URLSearchParams(), { ...form, page: '' }));
  };
  const toggle = (sale: AdminSale) => {
    const next = new Map(selected);
    if (next.has(sale.id)) next.delete(sale.id);
    else next.set(sale.id, sale);
    setSelected(next);
  };
  const chosen = (status: SaleStatus) => [...selected.values()].filter((s) => s.status === status && !s.refunded_at);
  // A status filter other than the move's own leaves nothing to move by search.
  const filterStatus = params.get('status');
  const matching = (from: SaleStatus) =>
    auditId || (filterStatus !== null && filterStatus !== '' && Number(filterStatus) !== from)
      ? 0
      : from === SaleStatus.AwaitingExport
        ? (counts.data?.counts.awaiting ?? 0)
        : (counts.data?.counts.in_progress ?? 0);

  /** Moves exactly what the button says: the selected sales, or every sale of the search, with the confirmed count. */
  const advance = async (to: typeof SaleStatus.InProgress | typeof SaleStatus.Registered, scope: 'selected' | 'search') => {
    const from = to === SaleStatus.InProgress ? SaleStatus.AwaitingExport : SaleStatus.InProgress;
    const picked = chosen(from);
    const ids = picked.map((s) => s.id);
    const n = scope === 'selected' ? ids.length : matching(from);
    const target = to === SaleStatus.InProgress ? '処理中' : '登録済み';
    const what =
      scope === 'selected'
        ? `選択した${count(n)}`
        : `検索結果の「${to === SaleStatus.InProgress ? '出力待ち' : '処理中'}」${count(n)}すべて`;
    const license = licenses.data?.licenses.find((l) => String(l.id) === licenseId)?.name;
    const yes = await confirm({
      title: `売上を「${target}」にします`,
      confirmLabel: `${count(n)}を${target}にする`,
      body: (
        <>
          <p>
            {what}を「{target}」にします。
          </p>
          {scope === 'selected' ? (
            <p className="small">対象：{firstFew(picked.map(saleName))}</p>
          ) : (
            <p className="small">
              対象：{license ? `「${license}」の` : ''}検索条件に合う「{to === SaleStatus.InProgress ? '出力待ち' : '処理中'}
              」の売上（返金済みを除く）
            </p>
          )}
        </>
      ),
    });
    if (!yes) return;
    void run(async () => {
      const search = {
        q: params.get('q') ?? undefined,
        paid_from: params.get('paid_from') ?? undefined,
        paid_to: params.get('paid_to') ?? undefined,
      };
      try {
        const res = await api<{ message: string }>('/api/sales/update', {
          method: 'POST',
          body: {
            status: to,
            licenseId: Number(licenseId),
            expected_count: n,
            ...(scope === 'selected' ? { saleIds: ids } : search),
          },
        });
        setNotice(res.message);
        setSelected(new Map());
      } finally {
        await refresh();
      }
    });
  };
  const revert = (event: FormEvent) => {
    event.preventDefault();
    if (!reverting) return;
    void run(async () => {
      const res = await api<{ message: string }>('/api/sales/revert', {
        method: 'POST',
        body: { saleIds: reverting.map((s) => s.id), reason },
      });
      setNotice(res.message);
      setReverting(null);
      setReason('');
      setSelected(new Map());
      await refresh();
    });
  };

  const selected0 = chosen(SaleStatus.AwaitingExport).length;
  const selected1 = chosen(SaleStatus.InProgress).length;
  const revertable = [...selected.values()].filter((s) => s.status !== SaleStatus.AwaitingExport && !s.refunded_at);
  const c = counts.data?.counts;
  return (
    <section className="card">
      <h1>ライセンス発行</h1>
      <p className="small">
        購入されたライセンスの状態（出力待ち → 処理中 → 登録済み）を進め、研修管理システム用のCSVを作成します。
      </p>
      {notice ? <Notice>{notice}</Notice> : null}
      {auditId ? (
        <div className="notice">
          <p>
            操作履歴の操作で状態が変わった売上だけを、現在の状態で表示しています。
            <Link to="/admin/licenses/issue">すべての売上を表示する</Link>
          </p>
        </div>
      ) : null}
      <FormAlert message={message} errors={errors} fields={['reason']} />
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
            options={SALE_STATUS_OPTIONS}
            onChange={(status) => setForm({ ...form, status })}
          />
          <TextInput
            label="氏名・フリガナ・メールアドレス・注文番号"
            name="q"
            value={form.q}
            onInput={(q) => setForm({ ...form, q })}
          />
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
            message={queryErrors?.paid_to}
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

      {c ? (
        <dl className="counts" aria-label="検索条件に合う売上の件数">
          <div>
            <dt>出力待ち</dt>
            <dd>{count(c.awaiting)}</dd>
          </div>
          <div>
            <dt>処理中</dt>
            <dd>{count(c.in_progress)}</dd>
          </div>
          <div>
            <dt>登録済み</dt>
            <dd>{count(c.registered)}</dd>
          </div>
          <div>
            <dt>返金済み</dt>
            <dd>{count(c.refunded)}</dd>
          </div>
        </dl>
      ) : null}

      <div className="actions toolbar">
        {selected0 ? (
          <button
            type="button"
            className="button"
            disabled={!licenseId || busy}
            onClick={() => void advance(SaleStatus.InProgress, 'selected')}
          >
            選択した{count(selected0)}を処理中にする
          </button>
        ) : (
          <button
            type="button"
            className="button"
            disabled={!licenseId || busy || matching(SaleStatus.AwaitingExport) === 0}
            onClick={() => void advance(SaleStatus.InProgress, 'search')}
          >
            検索結果の出力待ち{count(matching(SaleStatus.AwaitingExport))}をすべて処理中にする
          </button>
        )}
        {selected1 ? (
          <button
            type="button"
            className="button"
            disabled={!licenseId || busy}
            onClick={() => void advance(SaleStatus.Registered, 'selected')}
          >
            選択した{count(selected1)}を登録済みにする
          </button>
        ) : (
          <button
            type="button"
            className="button"
            disabled={!licenseId || busy || matching(SaleStatus.InProgress) === 0}
            onClick={() => void advance(SaleStatus.Registered, 'search')}
          >
            検索結果の処理中{count(matching(SaleStatus.InProgress))}をすべて登録済みにする
          </button>
        )}
        <button
          type="button"
          className="button"
          disabled={busy || revertable.length === 0}
          onClick={() => setReverting(revertable)}
        >
          選択した{count(revertable.length)}を差し戻す
        </button>
        {!licenseId ? <span className="small">状態を進めるには、ライセンスを選んで検索してください。</span> : null}
      </div>

      {reverting ? (
        <form className="subsection revert" onSubmit={revert} aria-labelledby="revert-heading" noValidate>
          <h2 id="revert-heading">差し戻し（{count(reverting.length)}）</h2>
          <p className="small">
            登録済みは処理中に、処理中は出力待ちに戻します。対象：
            {reverting.map((s) => `${s.user.last_name} ${s.user.first_name}（${s.status_label}）`).join('、')}
          </p>
          <TextInput label="差し戻しの理由" name="reason" required value={reason} onInput={setReason} message={errors.reason} />
          <div className="actions">
            <button type="submit" className="button primary" disabled={busy}>
              差し戻す
            </button>
            <button type="button" className="button" onClick={() => setReverting(null)}>
              やめる
            </button>
          </div>
        </form>
      ) : null}

      <p className="small" id="sales-search-help">
        氏名は会員の現在の氏名・フリガナで探します（1文字からどこでも一致。退会・削除された会員は購入時の氏名）。メールアドレスは一部でも、注文番号は全体で探します。
      </p>
      {data?.members_capped ? (
        <p className="alert" role="note">
          氏名・メールアドレスに合う会員が1,000人を超えたため、そのうち1,000人の売上だけを表示しています。もう少し長く入力して絞り込んでください。
        </p>
      ) : null}

      {isLoading ? <Loading /> : null}
      {queryErrors ? (
        <div className="alert" role="alert">
          <p>検索条件を確認してください。</p>
          <ul>
            {Object.entries(queryErrors).map(([field, text]) => (
              <li key={field}>{text}</li>
            ))}
          </ul>
        </div>
      ) : error ? (
        <LoadError error={error} onRetry={() => void mutate()} />
      ) : null}
      {data && data.sales.length === 0 ? <p>条件に合う売上はありません。</p> : null}
      {data && data.sales.length > 0 ? (
        <>
          <p className="small">
            全{count(data.total)}
            {data.total_capped ? '以上' : ''}
            {selected.size ? `（${count(selected.size)}を選択中）` : ''}
          </p>
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">
                    <span className="visually-hidden">選択</span>
                  </th>
                  <th scope="col">購入日時・注文番号</th>
                  <th scope="col">購入者</th>
                  <th scope="col">ライセンス</th>
                  <th scope="col">金額</th>
                  <th scope="col">状態</th>
                  <th scope="col">
                    <span className="visually-hidden">操作</span>
                  </th>
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
                        disabled={Boolean(sale.refunded_at)}
                        onChange={() => toggle(sale)}
                      />
                    </td>
                    <td>
                      {formatDateTime(sale.paid_at)}
                      <br />
                      <Link
                        to={orderDetailPath(sale.id)}
                        className="small order-number"
                        aria-label={`${sale.order_number ?? `売上ID ${sale.id}`} の注文の詳細`}
                      >
                        {sale.order_number ?? `売上ID ${sale.id}`}
                      </Link>
                    </td>
                    <td>
                      {sale.user_id ? (
                        <Link to={`/admin/users/${sale.user_id}`}>
                          {sale.user.last_name} {sale.user.first_name}
                        </Link>
                      ) : (
                        `${sale.user.last_name} ${sale.user.first_name}${GONE[sale.buyer_gone ?? 'unknown']}`
                      )}
                      <br />
                      <span className="small latin-break">{sale.user.email}</span>
                    </td>
                    <td>{sale.license_name}</td>
                    <td>{formatPrice(sale.amount)}</td>
                    <td>
                      {sale.refunded_at ? <span className="tag">返金済み</span> : sale.status_label}
                      {sale.refund_requested_at ? <span className="tag">返金手続き中</span> : null}
                    </td>
                    <td>
                      {sale.status !== SaleStatus.AwaitingExport && !sale.refunded_at ? (
                        <button
                          type="button"
                          className="button small"
                          aria-label={`${sale.user.last_name} ${sale.user.first_name}さんの売上を差し戻す`}
                          onClick={() => setReverting([sale])}
                        >
                          差し戻す
                        </button>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={data.page} perPage={data.per_page} total={data.total} onPage={setPage} label="販売一覧のページ送り" />
        </>
      ) : null}

      {auditId || queryErrors ? null : (
        <ExportPanel
          filters={filters}
          awaiting={filterStatus && filterStatus !== '0' ? 0 : (c?.awaiting ?? 0)}
          writes={exportRows(filterStatus, c)}
          onChanged={() => void refresh()}
        />
      )}
      {dialog}
      <LoadingOverlay show={busy} label="処理しています" />
    </section>
  );
}
