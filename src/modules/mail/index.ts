// The mail module's public surface: composing and sending e-mails (at least once, one Message-ID per
// delivery), each member's mail log, and the administrators' failed-mail view with its resend.
import type { AppModule } from '../../http/context.ts';
import { MailDelivery } from './entities/mail-delivery.entity.ts';
import { mailRoutes } from './routes.ts';

export { japanTime } from '../../lib/japan-time.ts';
export { mailAuditLabels } from './audit-labels.ts';
export { listMails, mailFigures, mailSummary, mailsAbout } from './mail-log.ts';
export { createMailer, type Mailer, messageIdFor } from './mailer.ts';
export { MailAnswer, MailPageAnswer } from './responses.ts';
export { CLAIM_LEASE_SECONDS, isPermanentSmtpError, MailInFlightError, renderMail, sendOnce } from './send.ts';

export const mail = { name: 'mail', api: mailRoutes, entities: [MailDelivery] } satisfies AppModule;
