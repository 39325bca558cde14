import { type FormEvent, useState } from 'react';
import { useSearchParams } from 'react-router';
import { FormAlert, Info } from '../../../components/ui/form-alert';
import { PagedTable, pageOf } from '../../../components/ui/paged-table';
import { TextInput } from '../../../components/ui/text-input';
import { formatDateTime } from '../../../lib/japan-time';
import { useCan } from '../../../lib/permissions';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { type Reconciliation, startReconciliation, useReconciliations } from '../api';
import { Findings } from './findings';

const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** 照合: run one now, the runs so far, and the findings of the one opened (or the latest). */
export function ReconciliationSection() {
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
  const canRun = useCan()('payments:update');
  const latest = runs.data?.reconciliations[0];
  const shown = opened ?? (latest?.state === 'done' ? latest.id : null);

  const start = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      await startReconciliation({ days: Number(days) });
      setPage(1);
      setOpened(null);
      await runs.mutate();
    });
  };

  return (
    <section className="subsection" aria-labelledby="reconciliation-heading">
      <h2 id="reconciliation-heading">照合</h2>
      <p>Stripe で支払い済みの決済・返金と、この店の売上を突き合わせます。毎日 3:00（日本時間）に自動で実行されます。</p>
      {canRun ? (
        <>
          <form className="toolbar" onSubmit={start}>
            <TextInput label="対象期間（日）" name="days" value={days} onInput={setDays} message={errors.days} />
            <button type="submit" className="button primary" disabled={busy}>
              今すぐ照合
            </button>
          </form>
          <FormAlert message={message} errors={errors} fields={['days']} />
        </>
      ) : null}
      <PagedTable
        list={pageOf(runs.data, (d) => d.reconciliations)}
        isLoading={runs.isLoading}
        error={runs.error}
        onRetry={() => void runs.mutate()}
        empty={message ? null : <Info>照合はまだ実行されていません。</Info>}
        pagerLabel="照合結果のページ送り"
        onPage={setPage}
      >
        {(reconciliations) => (
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
                {reconciliations.map((r) => (
                  <RunRow key={r.id} run={r} open={shown === r.id} onOpen={() => setOpened(r.id)} />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </PagedTable>
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
