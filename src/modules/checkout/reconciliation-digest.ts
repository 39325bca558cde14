import type { Em } from '../../db/orm.ts';
import type { EventHandler } from '../../jobs/context.ts';
import { japanDeadline } from '../../lib/japan-time.ts';
import { administrators } from '../accounts/index.ts';
import { renderMail, sendOnce } from '../mail/index.ts';
import { PaymentFinding, ReconciliationRun } from './entities/reconciliation.entity.ts';
import { FINDING_LABELS, type FindingKind } from './reconciliation.ts';

/** How many differences the e-mail names one by one; the rest are on the admin payments screen. */
const LISTED = 5;

const when = (date: Date) => `${japanDeadline(date)}（日本時間）`;
const triggerLabel = (trigger: string) => (trigger === 'schedule' ? '毎日 3:00 の定期照合' : '手動の照合');

function findingLine(finding: PaymentFinding): string {
  const label = FINDING_LABELS[finding.kind as FindingKind] ?? finding.kind;
  const refs = [
    finding.stripeSessionId ? `Checkout Session ${finding.stripeSessionId}` : null,
    finding.saleId ? `売上ID ${finding.saleId}` : null,
  ].filter(Boolean);
  return `・${label}：${refs.join('／') || '（参照なし）'}`;
}

/**
 * ReconciliationFlagged → one digest per run (and outcome) to each administrator, through the mail
 * module's at-least-once delivery: how many differences and of which kinds, the first few with their
 * Checkout Session and sale, what to do, and a link to the admin payments screen — or that the run
 * failed, with the error. Dates in Japan time.
 */
export const onReconciliationFlagged: EventHandler<'ReconciliationFlagged'> = async (ctx, event) => {
  const { runId, outcome } = event.payload;
  const run = await ctx.em.findOne(ReconciliationRun, { id: runId });
  if (!run) return 'skipped';
  // A failure a retry has since overcome: nothing left to tell (differences it found have their own event).
  if (outcome === 'failed' && run.state === 'done') return 'skipped';
  const admins = await administrators(ctx.em);
  if (admins.length === 0) {
    ctx.log.warn('reconciliation digest: no administrator to tell', { runId, outcome });
    return 'skipped';
  }
  const content = outcome === 'findings' ? await findingsDigest(ctx.em, run) : failureDigest(run);
  const url = `${ctx.env.appUrl}/admin/payments`;
  let sent = false;
  for (const admin of admins) {
    const name = `${admin.lastName} ${admin.firstName}`.trim();
    const result = await sendOnce(ctx, `${event.id}:reconciliation-digest:${admin.id}`, 'reconciliation-digest', admin.id, {
      to: admin.email,
      ...renderMail({
        ...content,
        greeting: name ? `${name} 様（管理者）` : '管理者各位',
        action: { label: '決済の受信箱と照合を開く', url },
        notes: [
          '対応が済んだら、管理メニューまたは決済の受信箱と照合の画面で「確認済み」にしてください。確認済みにするまで管理メニューに表示されます。',
          'このメールは管理者の皆様にお送りしています。',
        ],
      }),
    });
    if (result === 'sent') sent = true;
  }
  return sent ? 'done' : 'skipped';
};

async function findingsDigest(em: Em, run: ReconciliationRun) {
  const findings = await em.find(PaymentFinding, { runId: run.id }, { orderBy: { kind: 'asc', createdAt: 'asc', id: 'asc' } });
  const counts = new Map<string, number>();
  for (const finding of findings) counts.set(finding.kind, (counts.get(finding.kind) ?? 0) + 1);
  const breakdown = [...counts].map(([kind, n]) => `${FINDING_LABELS[kind as FindingKind] ?? kind} ${n}件`).join('、');
  const listed = findings.slice(0, LISTED).map(findingLine);
  const rest = findings.length - listed.length;
  return {
    subject: `決済の照合で差異が${findings.length}件見つかりました`,
    paragraphs: [
      `${when(run.startedAt ?? run.createdAt)}に開始した${triggerLabel(run.trigger)}（過去${run.days}日分）で、Stripe の支払いと売上の間に${findings.length}件の差異が見つかりました。`,
      `内訳：${breakdown}`,
      [...listed, ...(rest > 0 ? [`ほか ${rest}件`] : [])].join('\n'),
      '対応のしかた：管理画面の「決済の受信箱と照合」でこの照合結果を開き、差異ごとの説明を確認してください。' +
        'Webhook イベントが失敗・未処理のものは再実行すると売上に反映されます。金額の不一致や Stripe 側だけの返金は、Stripe のダッシュボードと売上を照らし合わせて対応してください。' +
        '対応後に「今すぐ照合」を実行すると、解消したかどうかを確かめられます。',
    ],
  };
}

function failureDigest(run: ReconciliationRun) {
  return {
    subject: '決済の照合に失敗しました',
    paragraphs: [
      `${when(run.startedAt ?? run.createdAt)}に開始した${triggerLabel(run.trigger)}（過去${run.days}日分）が、最後まで実行できませんでした。`,
      `エラー：${run.error ?? '（記録なし）'}`,
      '対応のしかた：照合は自動で再試行されます。Stripe の障害情報や API キーの設定、サーバーの接続状況を確認してください。' +
        'しばらくしても解消しない場合は、管理画面の「決済の受信箱と照合」で「今すぐ照合」を実行してください。',
    ],
  };
}
