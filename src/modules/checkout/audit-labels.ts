import type { AuditLabels } from '../audit/index.ts';
import { findingNames, reconciliationNames } from './audit-names.ts';
import { OUTCOME_LABELS } from './inbox.ts';
import { FINDING_LABELS } from './reconciliation.ts';

/** How the audit log names what administrators do to payments (the host hands these to the audit module). */
export const checkoutAuditLabels = {
  actions: {
    'payment.replay': '決済イベントの再処理',
    'reconciliation.run': '決済の照合',
    'reconciliation.acknowledge': '決済の照合結果を確認済みにする',
    'payment_finding.acknowledge': '照合の差異を確認済みにする',
    'payment.refund': '売上にしなかった支払いの返金（Stripe へ）',
    'payment.refund.failed': '売上にしなかった支払いの返金の取り下げ（Stripe が受け付けず）',
  },
  targets: { payment: '決済', payment_event: '決済イベント', reconciliation: '決済の照合', payment_finding: '照合の差異' },
  fields: {
    state: '処理状態',
    outcome: '処理結果',
    error: 'エラー',
    days: '照合した期間',
    finding_kind: '差異の種類',
    acknowledged: '確認済み',
    note: 'メモ',
    run_acknowledged: '照合結果も確認済み',
    refund_state: '返金の状態',
    reason: '返金の理由',
    amount: '金額（税込）',
    order_number: '注文番号',
    flag_reason: '売上にしなかった理由',
    payment_intent: 'Stripe の支払いID',
    stripe: 'Stripe の応答',
  },
  values: {
    // A Stripe event's processing state and outcome, worded as the payments inbox words them.
    state: { received: '未処理', processed: '処理済み', failed: '失敗' },
    outcome: OUTCOME_LABELS,
    finding_kind: FINDING_LABELS,
    refund_state: { none: 'なし', requested: '返金手続き中', refunded: '返金済み' },
    stripe: { refused: '返金を受け付けず', unavailable: '接続できず' },
    days: (v, text) => (typeof v === 'number' ? `${v.toLocaleString('ja-JP')}日分` : text.plain(v)),
  },
  names: { reconciliation: reconciliationNames, payment_finding: findingNames },
} satisfies AuditLabels;
