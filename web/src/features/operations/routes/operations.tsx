import { Link } from 'react-router';
import { queueLabel } from '../../../../../src/events/labels';
import { LoadError, Loading } from '../../../components/ui/load-state';
import { formatDateTime } from '../../../lib/japan-time';
import { type Operations, useOperations } from '../api';
import '../operations.css';

/** 「3分」「1時間5分」: how long ago, in words an operator reads at a glance. */
function duration(seconds: number): string {
  if (seconds < 60) return `${seconds}秒`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}分`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 ? `${hours}時間${minutes % 60}分` : `${hours}時間`;
}

interface Row {
  label: string;
  value: string;
  /** The figure needs someone (shown as a warning, and said in words, not by colour alone). */
  attention?: boolean;
  to?: string;
}

type Section = { heading: string; items: Row[] };

const REDIS_DOWN: Row = { label: 'Redis', value: '接続できないため表示できません', attention: true };

/** Who runs the work: known only through Redis. */
function workerRows(o: Operations): Row[] {
  if (!o.workers || !o.sweeper) return [REDIS_DOWN];
  return [
    {
      label: '動いているワーカー',
      value: o.workers.fresh === 0 ? '0台（動いていません）' : `${o.workers.fresh}台`,
      attention: o.workers.fresh === 0,
    },
    {
      label: '取りこぼしの見直し（スイーパー）の最終実行',
      value: o.sweeper.last_run_at
        ? `${formatDateTime(o.sweeper.last_run_at)}（やり直したジョブ ${o.sweeper.redriven}件）`
        : 'まだ実行されていません',
      attention: !o.sweeper.last_run_at,
    },
  ];
}

/** Whether the workers run and the outbox drains. */
function processRows(o: Operations): Section[] {
  const outboxOld = o.outbox.oldest_age_seconds >= 300;
  return [
    { heading: '処理担当（ワーカー）', items: workerRows(o) },
    {
      heading: '送り出し待ちのイベント',
      items: [
        { label: '件数', value: `${o.outbox.backlog}件` },
        {
          label: '最も古いもの',
          value: o.outbox.backlog ? `${duration(o.outbox.oldest_age_seconds)}前${outboxOld ? '（滞っています）' : ''}` : 'なし',
          attention: outboxOld,
        },
      ],
    },
  ];
}

function rows(o: Operations): Section[] {
  return [
    ...processRows(o),
    {
      heading: 'メール',
      items: [
        {
          label: '送信に失敗したメール',
          value: `${o.mail.failed}件`,
          attention: o.mail.failed > 0,
          to: '/admin/mails',
        },
        { label: '自動で再送中', value: `${o.mail.retrying}件` },
        { label: '送信中', value: `${o.mail.pending}件` },
        {
          label: '送信中のまま止まっているメール',
          value: `${o.mail.stuck}件`,
          attention: o.mail.stuck > 0,
          to: '/admin/mails?status=stuck',
        },
      ],
    },
    {
      heading: '決済の受信箱と照合',
      items: [
        { label: '未処理の通知', value: `${o.payments_inbox.unprocessed}件`, to: '/admin/payments' },
        {
          label: '処理に失敗した通知',
          value: `${o.payments_inbox.failed}件`,
          attention: o.payments_inbox.failed > 0,
          to: '/admin/payments',
        },
        {
          label: '照合で見つかった未確認の差異',
          value: `${o.payments_flagged.open}件`,
          attention: o.payments_flagged.open > 0,
          to: '/admin/payments',
        },
      ],
    },
    {
      heading: '研修管理システム用CSV',
      items: [
        { label: '作成待ち', value: `${o.exports.queued}件`, to: '/admin/licenses/issue' },
        {
          label: '作成中',
          value: o.exports.running_on.length
            ? `${o.exports.running}件（${o.exports.running_on.join('、')}）`
            : `${o.exports.running}件`,
        },
        { label: '失敗して再試行中', value: `${o.exports.retrying}件`, attention: o.exports.retrying > 0 },
        { label: '作成に失敗', value: `${o.exports.failed}件`, attention: o.exports.failed > 0 },
      ],
    },
    {
      heading: 'ジョブキュー',
      items: o.queues
        ? Object.entries(o.queues).map(([name, q]) => ({
            label: queueLabel(name),
            value: `待機 ${q.waiting}件・実行中 ${q.active}件・予約 ${q.delayed}件・失敗 ${q.failed}件`,
          }))
        : [REDIS_DOWN],
    },
  ];
}

/**
 * /admin/operations: what the operator on call watches, in the figures the metrics and their alerts
 * use (GET /api/operations reads what /metrics reads), refreshed every 10 seconds.
 */
export function OperationsPage() {
  const { data, error, isLoading, mutate } = useOperations();
  return (
    <section className="card">
      <h1>運用状況</h1>
      <p className="lead">
        メール・決済・CSV作成の処理の滞りを表示します。監視（Prometheus の /metrics）と同じ数字で、10秒ごとに更新します。
      </p>
      {isLoading ? <Loading label="運用状況を読み込んでいます…" /> : null}
      {error ? <LoadError error={error} onRetry={() => void mutate()} /> : null}
      {data
        ? rows(data.operations).map((group) => (
            <section key={group.heading} className="subsection" aria-label={group.heading}>
              <h2>{group.heading}</h2>
              <dl className="figures">
                {group.items.map((item) => (
                  <div key={item.label} className={item.attention ? 'figure attention' : 'figure'}>
                    <dt>{item.label}</dt>
                    <dd>
                      {item.to ? <Link to={item.to}>{item.value}</Link> : item.value}
                      {item.attention ? <span className="small">（要確認）</span> : null}
                    </dd>
                  </div>
                ))}
              </dl>
            </section>
          ))
        : null}
      <p>
        {/* A server page (bull-board), not an SPA route. */}
        <a href="/admin/queues">ジョブキューの詳細を見る</a>
      </p>
    </section>
  );
}
