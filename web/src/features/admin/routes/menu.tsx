import { useState } from 'react';
import { Link } from 'react-router';
import { FormAlert, Notice } from '../../../components/ui/form-alert';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { NoWorkerAlert } from '../../../components/ui/no-worker-alert';
import { formatJapanTime } from '../../../lib/japan-time';
import { useCan } from '../../../lib/permissions';
import { useFormSubmit } from '../../../lib/use-form-submit';
import { acknowledgeRun, type FlaggedRun, useFlaggedRuns, useMailSummary } from '../api';
import { DashboardFigures } from '../components/dashboard';

/**
 * What the app hands the menu: every admin screen (the side menu's list, web/src/app/admin-nav.ts),
 * and logging out (a feature does not import the app). `server`: a page the server draws.
 */
export interface AdminMenuProps {
  items: readonly { label: string; to: string; server?: boolean }[];
  onLogout: () => void;
}

/** /admin: the administrator's menu (a menu page: no navigation bar, its own buttons instead). */
export function AdminMenuPage({ items, onLogout }: AdminMenuProps) {
  return (
    <section className="card">
      <h1>管理メニュー</h1>
      <DashboardFigures />
      <Attention />
      <ul className="menu">
        {items.map((item) => (
          <li key={item.to}>
            {item.server ? (
              <a href={item.to} className="button menu-button">
                {item.label}
              </a>
            ) : (
              <Link to={item.to} className="button menu-button">
                {item.label}
              </Link>
            )}
          </li>
        ))}
        <li>
          <button type="button" className="button menu-button secondary" onClick={onLogout}>
            ログアウト
          </button>
        </li>
      </ul>
    </section>
  );
}

/** What needs an administrator now: mail that failed for good or is stuck, and reconciliation findings. */
function Attention() {
  return (
    <section className="subsection" aria-labelledby="attention-heading">
      <h2 id="attention-heading">対応が必要なこと</h2>
      <MailCounts />
      <FlaggedRuns />
    </section>
  );
}

function MailCounts() {
  const { data, error, isLoading, mutate } = useMailSummary();
  if (isLoading) return <Loading label="メールの送信状況を読み込んでいます…" />;
  if (error) return <LoadError error={error} onRetry={() => void mutate()} />;
  if (!data) return null;
  const { failed_for_good: failed, stuck, lease_seconds: lease, workers_alive: alive } = data.summary;
  return (
    <>
      {alive === false ? <NoWorkerAlert waiting="メールの送信、決済の通知の処理、CSVの作成は止まっています。" /> : null}
      <dl className="counts">
        <div>
          <dt>
            <Link to="/admin/mails">送信に失敗したメール</Link>
            <span className="small">（宛先が拒否・未再送）</span>
          </dt>
          <dd>{failed.toLocaleString('ja-JP')}件</dd>
        </div>
        <div>
          <dt>
            <Link to="/admin/mails?status=stuck">送信中のまま止まっているメール</Link>
            <span className="small">（{Math.round(lease / 60)}分以上）</span>
          </dt>
          <dd>{stuck.toLocaleString('ja-JP')}件</dd>
        </div>
      </dl>
    </>
  );
}

function FlaggedRuns() {
  const { data, error, isLoading, mutate } = useFlaggedRuns();
  const acknowledge = useFormSubmit();
  const [notice, setNotice] = useState('');
  const canAcknowledge = useCan()('payments:update');

  const mark = (run: FlaggedRun) => {
    setNotice('');
    void acknowledge.run(async () => {
      const { message } = await acknowledgeRun(run.id, {});
      setNotice(message);
      await mutate();
    });
  };

  return (
    <section aria-labelledby="flagged-heading">
      <h3 id="flagged-heading">決済の照合で見つかった差異・失敗</h3>
      {notice ? <Notice>{notice}</Notice> : null}
      <FormAlert message={acknowledge.message} errors={acknowledge.errors} />
      {isLoading ? <Loading label="照合の結果を読み込んでいます…" /> : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {data && data.total === 0 ? <p>未確認の差異や失敗はありません。</p> : null}
      {data && data.total > 0 ? (
        <ul className="findings">
          {data.reconciliations.map((run) => {
            const at = formatJapanTime(run.started_at ?? run.created_at);
            const what =
              run.state === 'done'
                ? `${at}の照合（${run.trigger_label}・過去${run.days}日）で差異が${run.findings}件見つかりました（未確認 ${run.open_findings ?? run.findings}件）。`
                : `${at}の照合（${run.trigger_label}）が失敗しました。${run.state === 'failed' ? '' : '自動で再試行しています。'}`;
            return (
              <li key={run.id} className="finding">
                <p>{what}</p>
                {run.state !== 'done' && run.error ? <p className="small">{run.error}</p> : null}
                <p className="actions">
                  <Link to={`/admin/payments?run=${run.id}`}>照合結果を見る</Link>
                  {canAcknowledge ? (
                    <button
                      type="button"
                      className="button"
                      aria-label={`確認済みにする（${at}の照合）`}
                      disabled={acknowledge.busy}
                      onClick={() => mark(run)}
                    >
                      確認済みにする
                    </button>
                  ) : null}
                </p>
              </li>
            );
          })}
        </ul>
      ) : null}
      {data && data.total > data.reconciliations.length ? (
        <p className="small">ほかに{data.total - data.reconciliations.length}件あります。</p>
      ) : null}
    </section>
  );
}
