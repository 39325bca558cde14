// The mail module's public surface: composing and sending e-mails once, and each member's mail log.
import type { AppModule } from '../../http/context.ts';
import { MailDelivery } from './entities/mail-delivery.entity.ts';

export { renderMail } from './layout.ts';
export { createMailer, type Mailer, type MailMessage } from './mailer.ts';
export { listMails, sendOnce } from './service.ts';

export const mail = { name: 'mail', entities: [MailDelivery] } satisfies AppModule;
