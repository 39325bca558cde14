// The mail module's public surface: composing and sending e-mails once.
export { renderMail } from './layout.ts';
export { createMailer, type Mailer, type MailMessage } from './mailer.ts';
export { sendOnce } from './service.ts';
