import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from '../../lib/logger.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<{ messageId: string; file?: string }>;
  close(): void;
}

/**
 * A development e-mail's file name: time, recipient (readable, `@` kept) and the start of its Message-ID,
 * e.g. `2026-11-22T10-15-00-000Z_demo-member@example.jp_22be36e2.eml`. Anything a file name should not
 * hold becomes `_`.
 */
export function devMailFileName(at: Date, to: string, messageId: string): string {
  const time = at.toISOString().replace(/[:.]/g, '-');
  const recipient = to.replace(/[^A-Za-z0-9@._+-]/g, '_').slice(0, 120);
  const id = messageId
    .replace(/^<|@.*$/g, '')
    .replace(/[^A-Za-z0-9-]/g, '')
    .slice(0, 8);
  return `${time}_${recipient}_${id}.eml`;
}

/**
 * SMTP_URL set: nodemailer over SMTP. Unset: each e-mail is written as an .eml file under
 * DATA_DIR/mail and its path logged, so development needs no mail server.
 */
export function createMailer(options: { smtpUrl?: string; from: string; dataDir: string; log: Logger }): Mailer {
  if (options.smtpUrl) {
    const transport = nodemailer.createTransport(options.smtpUrl);
    return {
      async send(message) {
        const info = await transport.sendMail({ from: options.from, ...message });
        return { messageId: info.messageId };
      },
      close: () => transport.close(),
    };
  }
  const dir = join(options.dataDir, 'mail');
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(message) {
      const info = await transport.sendMail({ from: options.from, ...message });
      mkdirSync(dir, { recursive: true });
      const file = join(dir, devMailFileName(new Date(), message.to, info.messageId));
      writeFileSync(file, info.message as Buffer);
      options.log.info('e-mail written to file (SMTP_URL is not set)', { to: message.to, subject: message.subject, file });
      return { messageId: info.messageId, file };
    },
    close: () => transport.close(),
  };
}
