import { type FormEvent, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { FormAlert, Info, Notice } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { Pager, usePageParam } from '../../../components/ui/pager';
import { SelectField } from '../../../components/ui/select-field';
import { TextInput } from '../../../components/ui/text-input';
import { useConfirm } from '../../../components/ui/use-confirm';
import { api } from '../../../lib/api';
import { formatDateTime } from '../../../lib/japan-time';
import { withParams } from '../../../lib/search-params';
import { useFormSubmit } from '../../../lib/use-form-submit';
import {
  EVENT_FILTERS,
  EVENT_STATES,
  EVENT_TYPES,
  type Finding,
  type InboxEvent,
  type Reconciliation,
  useInbox,
  useReconciliation,
  useReconciliations,
} from '../api';
import '../payments.css';

const STATE_LABEL: Record<InboxEvent['state'], string> = { received: '未処理', processed: '処理済み', failed: '失敗' };

const money = (amount: number | null, currency: string | null) =>
  amount === null ? '—' : currency === 'jpy' ? `¥${amount.toLocaleString('ja-JP')}` : `${amount} ${currency ?? ''}`;

/** /admin/payments: the Stripe event inbox (with replay) and the reconciliation of payments with sales. */
export function AdminPaymentsPage() {
  return (
    <section className="card">
      <h1>決済の受信箱と照合</h1>
      <p className="lead">
        Stripe
        から届いたイベントと、その処理の結果です。失敗したイベントは原因を確かめてから再実行できます（何度実行しても売上やメールは二重になりません）。
      </p>
      <ReconciliationSection />
      <InboxSection />
    </section>
  );
}

const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function ReconciliationSection() {
  const [params] = useSearchParams();
  const [page, setPage] = useState(1);
  // The admin menu links to one run's findings (?run=<id>).
  const [opened, setOpened] = useState<string | null>(() => {
    const run = params.get('run') ?? '';
    return RUN_ID.test(run) ? run : null;
  });
  const [days, setDays] = useState('7');
  const runs = useReconciliations(page);
  const { busy, message, errors, run } = useFormSubmit();
  const latest = runs.data?.reconciliations[0];
  const shown = opened ?? (latest?.state === 'done' ? latest.id : null);

  const start = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      await api('/api/payments/reconciliations', { method: 'POST', body: { days: Number(days) } });
      setPage(1);
      setOpened(null);
      await runs.mutate();
    });
  };

  return (
    <section className="subsection" aria-labelledby="reconciliation-heading">
      <h2 id="reconciliation-heading">照合</h2>
      <p>Stripe で支払い済みの決済・返金と、この店の売上を突き合わせます。毎日 3:00（日本時間）に自動で実行されます。</p>
      <form className="toolbar" onSubmit={start}>
        <TextInput label="対象期間（日）" name="days" value={days} onInput={setDays} message={errors.days} />
        <button type="submit" className="button primary" disabled={busy}>
          今すぐ照合
        </button>
      </form>
      <FormAlert message={message} errors={errors} fields={['days']} />
      {runs.isLoading ? <Loading /> : null}
      {runs.error ? <LoadError error={runs.error} onRetry={() => void runs.mutate()} /> : null}
      {runs.data && runs.data.reconciliations.length === 0 && !message ? <Info>照合はまだ実行されていません。</Info> : null}
      {runs.data && runs.data.reconciliations.length > 0 ? (
        <>
          <div className="table-wrap">
            <table className="table">
              <caption className="visually-hidden">照合の履歴</caption>
              <thead>
                <tr>
                  <th scope="col">開始</th>
                  <th scope="col">種別</th>
                  <th scope="col">状態</th>
                  <th scope="col">確認した件数</th>
                  <th scope="col">差異</th>
                  <th scope="col">
                    <span className="visually-hidden">操作</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {runs.data.reconciliations.map((r) => (
                  <RunRow key={r.id} run={r} open={shown === r.id} onOpen={() => setOpened(r.id)} />
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            page={runs.data.page}
            perPage={runs.data.per_page}
            total={runs.data.total}
            onPage={setPage}
            label="照合結果のページ送り"
          />
        </>
      ) : null}
      {shown ? <Findings id={shown} /> : null}
    </section>
  );
}

function RunRow({ run, open, onOpen }: { run: Reconciliation; open: boolean; onOpen: () => void }) {
  return (
    <tr>
      <td>{formatDateTime(run.started_at ?? run.created_at)}</td>
      <td>
        {run.trigger_label}
        {run.requested_by ? <div className="small">{run.requested_by}</div> : null}
      </td>
      <td>
        {run.state === 'failed' ? <span className="tag">{run.state_label}</span> : run.state_label}
        {run.error ? <div className="small">{run.error}</div> : null}
        {run.acknowledged_at ? (
          <div className="small">
            確認済み（{formatDateTime(run.acknowledged_at)}
            {run.acknowledged_by ? `・${run.acknowledged_by}` : ''}）
          </div>
        ) : null}
      </td>
      <td>
        {run.state === 'done'
          ? `過去${run.days}日：決済${run.sessions_checked}件・売上${run.sales_checked}件・返金${run.refunds_checked}件`
          : '—'}
      </td>
      <td>
        {run.state === 'done' ? (
          run.findings ? (
            <>
              <strong>{run.findings}件</strong>
              <div className="small">{run.open_findings ? `未確認 ${run.open_findings}件` : 'すべて確認済み'}</div>
            </>
          ) : (
            'なし'
          )
        ) : (
          '—'
        )}
      </td>
      <td>
        {run.state === 'done' ? (
          <button type="button" className="link-button" aria-pressed={open} onClick={onOpen}>
            結果を見る
          </button>
        ) : null}
      </td>
    </tr>
  );
}

function Findings({ id }: { id: string }) {
  const { data, error, isLoading, mutate } = useReconciliation(id);
  if (isLoading) return <Loading />;
  if (error) return <LoadError error={error} onRetry={() => void mutate()} />;
  if (!data) return null;
  const { reconciliation, findings } = data;
  return (
    <div className="subsection">
      <h3>{formatDateTime(reconciliation.started_at ?? reconciliation.created_at)} の照合結果</h3>
      {findings.length === 0 ? (
        <Notice>差異はありませんでした。Stripe の支払いと売上はすべて一致しています。</Notice>
      ) : (
        <ul className="findings">
          {findings.map((finding) => (
            <FindingItem key={finding.id} finding={finding} onChanged={() => void mutate()} />
          ))}
        </ul>
      )}
    </div>
  );
}

function FindingItem({ finding, onChanged }: { finding: Finding; onChanged: () => void }) {
  return (
    <li className="finding">
      <p>
        <span className="tag">{finding.kind_label}</span> {finding.detail}
      </p>
      <p className="small">
        Stripe：{money(finding.stripe_amount, finding.stripe_currency)} ／ この店：
        {money(finding.our_amount, finding.our_currency)}
        {finding.stripe_session_id ? ` ／ Stripe の決済セッションID：${finding.stripe_session_id}` : ''}
        {finding.sale_order_number ? ` ／ 注文番号：${finding.sale_order_number}` : ''}
      </p>
      <p className="actions">
        {finding.event_id ? (
          <Link to={`/admin/payments?${new URLSearchParams({ session: finding.stripe_session_id ?? '' })}#inbox`}>
            受信したイベントを見て再実行する
          </Link>
        ) : null}
        {finding.sale_user_id ? (
          <Link to={`/admin/users/${finding.sale_user_id}`}>
            {finding.sale_order_number ? `注文番号 ${finding.sale_order_number} の購入者` : 'この売上の購入者'}
          </Link>
        ) : null}
        {finding.sale_id && !finding.sale_user_id && finding.sale_buyer_email ? (
          <Link to={`/admin/licenses/issue?${new URLSearchParams({ q: finding.sale_buyer_email })}`}>
            {finding.sale_order_number ? `注文番号 ${finding.sale_order_number} の売上` : 'この売上'}
          </Link>
        ) : null}
      </p>
      <FindingAcknowledgement finding={finding} onChanged={onChanged} />
    </li>
  );
}

/** 確認済み with who, when and the note; or the form that marks it so (a note is required). */
function FindingAcknowledgement({ finding, onChanged }: { finding: Finding; onChanged: () => void }) {
  const [note, setNote] = useState('');
  const [open, setOpen] = useState(false);
  const [notice, setNotice] = useState('');
  const { busy, message, errors, run } = useFormSubmit();
  if (finding.acknowledged_at) {
    return (
      <div className="finding-acknowledged">
        <p className="small">
          <strong>確認済み</strong>（{formatDateTime(finding.acknowledged_at)}
          {finding.acknowledged_by ? `・${finding.acknowledged_by}` : ''}）
        </p>
        {finding.acknowledgement_note ? <p className="small">メモ：{finding.acknowledgement_note}</p> : null}
        {notice ? <Notice>{notice}</Notice> : null}
      </div>
    );
  }
  if (!open) {
    return (
      <p className="actions">
        <button
          type="button"
          className="button"
          aria-label={`${finding.kind_label}（${finding.sale_order_number ?? finding.stripe_session_id ?? finding.detail}）を確認済みにする`}
          onClick={() => setOpen(true)}
        >
          確認済みにする
        </button>
      </p>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const answer = await api<{ message: string }>(`/api/payments/findings/${finding.id}/acknowledge`, {
        method: 'POST',
        body: { note },
      });
      setNotice(answer.message);
      onChanged();
    });
  };
  return (
    <form className="finding-acknowledge" onSubmit={submit} noValidate>
      <TextInput
        label="確認した内容・対応（500文字まで）"
        name="note"
        required
        value={note}
        onInput={setNote}
        message={errors.note}
      />
      <FormAlert message={message} errors={errors} fields={['note']} />
      <div className="actions">
        <button type="submit" className="button primary" disabled={busy}>
          確認済みにする
        </button>
        <button type="button" className="button secondary" onClick={() => setOpen(false)}>
          やめる
        </button>
      </div>
    </form>
  );
}

/** The member who paid (a link to them) and the amount, as the inbox row shows them. */
function InboxBuyer({ event }: { event: InboxEvent }) {
  return (
    <>
      {event.buyer ? (
        <>
          <Link to={`/admin/users/${event.buyer.user_id}`}>{event.buyer.name}</Link>
          <div className="small inbox-email">{event.buyer.email}</div>
        </>
      ) : event.buyer_deleted ? (
        <div className="small">削除された会員</div>
      ) : (
        <div className="small">会員の記録なし</div>
      )}
      {event.amount !== null ? <div>{money(event.amount, event.currency)}</div> : null}
    </>
  );
}

function InboxSection() {
  const [params, setParams] = useSearchParams();
  const { setPage } = usePageParam();
  const [form, setForm] = useState(
    () =>
      Object.fromEntries(EVENT_FILTERS.map((f) => [f, params.get(f) ?? ''])) as Record<(typeof EVENT_FILTERS)[number], string>,
  );
  const { data, error, isLoading, mutate } = useInbox(params);
  const [notice, setNotice] = useState('');
  const replay = useFormSubmit();
  const { confirm, dialog } = useConfirm();
  const filtered = EVENT_FILTERS.some((f) => params.get(f));

  const search = (event: FormEvent) => {
    event.preventDefault();
    setParams(withParams(new URLSearchParams(), { ...form, page: '' }));
  };
  const rerun = async (event: InboxEvent) => {
    const yes = await confirm({
      title: '決済の通知を再実行します',
      confirmLabel: '再実行する',
      body: (
        <p>
          {formatDateTime(event.received_at)}に受け取った「{event.type_label}
          」の通知を、もう一度処理します。売上は重複して作られません。
        </p>
      ),
    });
    if (!yes) return;
    setNotice('');
    void replay.run(async () => {
      const { event: after } = await api<{ event: InboxEvent }>(`/api/payments/events/${event.id}/replay`, { method: 'POST' });
      setNotice(
        after.state === 'failed'
          ? `再実行しましたが失敗しました：${after.error ?? '原因不明'}`
          : `再実行しました（${after.outcome_label ?? '処理済み'}）。`,
      );
      await mutate();
    });
  };

  return (
    <section className="subsection" id="inbox" aria-labelledby="inbox-heading">
      <h2 id="inbox-heading">Stripe イベント</h2>
      <form className="search search-rows" onSubmit={search}>
        <div className="field-row">
          <SelectField
            label="種類"
            name="type"
            value={form.type}
            options={EVENT_TYPES}
            placeholder="すべて"
            onChange={(type) => setForm({ ...form, type })}
          />
          <SelectField
            label="状態"
            name="state"
            value={form.state}
            options={EVENT_STATES}
            placeholder="すべて"
            onChange={(state) => setForm({ ...form, state })}
          />
        </div>
        <div className="field-row">
          <TextInput
            label="受信日（から）"
            name="from"
            type="date"
            value={form.from}
            onInput={(from) => setForm({ ...form, from })}
          />
          <TextInput label="受信日（まで）" name="to" type="date" value={form.to} onInput={(to) => setForm({ ...form, to })} />
        </div>
        <div className="field-row">
          <TextInput
            label="注文番号"
            name="order_number"
            value={form.order_number}
            placeholder="LS-2611-7K3Q9M"
            onInput={(order_number) => setForm({ ...form, order_number })}
          />
          <TextInput
            label="Stripe の決済セッションID"
            name="session"
            value={form.session}
            onInput={(session) => setForm({ ...form, session })}
          />
        </div>
        <div className="search-actions">
          <button type="submit" className="button primary">
            検索
          </button>
          {filtered ? (
            <button
              type="button"
              className="button"
              onClick={() => {
                setForm({ type: '', state: '', session: '', order_number: '', from: '', to: '' });
                setParams(new URLSearchParams());
              }}
            >
              条件をクリア
            </button>
          ) : null}
        </div>
      </form>
      {notice ? <Notice>{notice}</Notice> : null}
      <FormAlert message={replay.message} errors={replay.errors} />
      {isLoading ? <Loading /> : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {data && data.events.length === 0 ? (
        <Info>{filtered ? '条件に合うイベントはありません。' : 'Stripe からのイベントはまだ届いていません。'}</Info>
      ) : null}
      {data && data.events.length > 0 ? (
        <>
          <div className="table-wrap">
            <table className="table">
              <caption className="visually-hidden">受信した Stripe イベント</caption>
              <thead>
                <tr>
                  <th scope="col">受信日時</th>
                  <th scope="col">種類</th>
                  <th scope="col">購入者・金額</th>
                  <th scope="col">状態</th>
                  <th scope="col">結果・エラー</th>
                  <th scope="col">試行</th>
                  <th scope="col">
                    <span className="visually-hidden">操作</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.events.map((event) => (
                  <tr key={event.id}>
                    <td>{formatDateTime(event.received_at)}</td>
                    <td>
                      {event.type_label}
                      <div className="small">イベントID：{event.id}</div>
                      {event.order_number ? (
                        <div className="small">
                          注文番号{' '}
                          {event.sale_id ? (
                            <Link to={`/admin/sales/${event.sale_id}`}>{event.order_number}</Link>
                          ) : (
                            event.order_number
                          )}
                        </div>
                      ) : null}
                    </td>
                    <td>
                      <InboxBuyer event={event} />
                    </td>
                    <td>
                      {event.state === 'processed' ? (
                        STATE_LABEL[event.state]
                      ) : (
                        <span className="tag">{STATE_LABEL[event.state]}</span>
                      )}
                    </td>
                    <td>
                      {event.state === 'failed' ? (
                        <>
                          <div>{event.error}</div>
                          {event.failed_at ? <div className="small">{formatDateTime(event.failed_at)} に失敗</div> : null}
                        </>
                      ) : (
                        (event.outcome_label ?? '処理待ち')
                      )}
                    </td>
                    <td>{event.attempts}回</td>
                    <td>
                      <button
                        type="button"
                        className="button"
                        aria-label={`${event.type_label}（${event.id}）を再実行`}
                        disabled={replay.busy}
                        onClick={() => void rerun(event)}
                      >
                        再実行
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            page={data.page}
            perPage={data.per_page}
            total={data.total}
            onPage={setPage}
            label="受信したイベントのページ送り"
          />
        </>
      ) : null}
      {dialog}
    </section>
  );
}
