import type { AuditLabels } from '../audit/index.ts';

/** How the audit log names what administrators do to mails (the host hands these to the audit module). */
export const mailAuditLabels = {
  actions: { 'mail.resend': 'メールの再送信' },
  targets: { mail: 'メール' },
} satisfies AuditLabels;
