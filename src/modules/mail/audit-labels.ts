import type { AuditLabels } from '../audit/index.ts';
import { mailNames } from './audit-names.ts';
import type { MailStatus } from './entities/mail-delivery.entity.ts';

/** A mail's sending state in the words of 送信に失敗したメール (送信失敗, never 送信不可). */
const MAIL_STATUS: Record<MailStatus, string> = { sending: '送信中', sent: '送信済み', failed: '送信失敗' };

/** How the audit log names what administrators do to mails (the host hands these to the audit module). */
export const mailAuditLabels = {
  actions: { 'mail.resend': 'メールの再送信' },
  targets: { mail: 'メール' },
  fieldsByTarget: {
    mail: {
      status: '送信状態',
      stuck: '送信中のまま停止',
      permanent: '宛先による拒否',
      error: 'メールサーバーの応答（原文）',
      attempts: '試行回数',
    },
  },
  valuesByTarget: {
    mail: {
      status: MAIL_STATUS,
      permanent: (v) => (v ? 'はい（自動では再送しない）' : 'いいえ（一時的な失敗）'),
      attempts: (v, text) => (typeof v === 'number' ? `${v.toLocaleString('ja-JP')}回` : text.plain(v)),
    },
  },
  names: { mail: mailNames },
} satisfies AuditLabels;
