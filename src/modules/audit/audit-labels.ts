import type { AuditLabels } from './labels.ts';

/** The audit module's own entries: its CSV export. */
export const ownAuditLabels = {
  actions: { 'audit.export': '操作履歴のCSV出力' },
  targets: { audit_log: '操作履歴' },
  fields: { audit_filters: '絞り込み条件', encoding: '文字コード' },
  values: {
    encoding: { 'utf-8': 'UTF-8', shift_jis: 'Shift_JIS（CP932）' },
    audit_filters: (v, text) => {
      if (!v || typeof v !== 'object' || Array.isArray(v)) return text.plain(v);
      const names: Record<string, string> = {
        actor: '操作者',
        action: '操作',
        target_type: '対象の種類',
        target_id: '対象のID',
        from: '期間（から）',
        to: '期間（まで）',
      };
      const given = Object.entries(v).filter(([, value]) => !text.isEmpty(value));
      return given.length
        ? given.map(([key, value]) => `${names[key] ?? key}: ${text.plain(value)}`).join('、')
        : 'なし（すべて）';
    },
  },
} satisfies AuditLabels;
