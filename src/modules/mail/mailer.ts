import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from '../../lib/logger.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId?: string;
  /** Extra header lines (List-Unsubscribe on announcements). */
  headers?: Record<string, string>;
  /** One of many (announcements): sent over a kept-open connection instead of a new one each. */
  bulk?: boolean;
  replyTo?: string;
  attachments?: { filename: string; content: Buffer; contentType: string }[];
}

export interface Mailer {
  send(message: MailMessage): Promise<{ messageId: string; file?: string }>;
  messageIdFor(key: string): string;
  close(): void;
}

/** A hung server costs half a minute per phase, not nodemailer's default minutes; SMTP_URL's query may override. */
const SMTP_TIMEOUTS = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 30_000 } as const;

function senderDomain(from: string): string {
  const domain = /@([A-Za-z0-9.-]+)>?\s*$/.exec(from)?.[1]?.toLowerCase();
  return domain || 'localhost';
}

/** Derived from the key, so a copy sent again is recognisably the same e-mail (mail programs fold them). */
export const messageIdFor = (key: string, from: string): string =>
  `<${createHash('sha256').update(`mail-delivery:${key}`).digest('hex')}@${senderDomain(from)}>`;

function devMailFileName(at: Date, to: string, messageId: string): string {
  const time = at.toISOString().replace(/[:.]/g, '-');
  const recipient = to.replace(/[^A-Za-z0-9@._+-]/g, '_').slice(0, 120);
  const id = messageId
    .replace(/^<|@.*$/g, '')
    .replace(/[^A-Za-z0-9-]/g, '')
    .slice(0, 8);
  return `${time}_${recipient}_${id}.eml`;
}

/** Unset SMTP_URL: each e-mail is an .eml file under DATA_DIR/mail, so development needs no mail server. */
export function createMailer(options: { smtpUrl?: string; from: string; dataDir: string; log: Logger }): Mailer {
  const idFor = (key: string) => messageIdFor(key, options.from);
  if (options.smtpUrl) {
    // Options given with `url` are overridden by the URL's query, so SMTP_URL may set other limits.
    const transport = nodemailer.createTransport({ url: options.smtpUrl, ...SMTP_TIMEOUTS });
    // nodemailer's pooled transport for bulk: a connection costs more than a message (measured 140 ms vs 20 ms).
    let pooled: typeof transport | undefined;
    return {
      async send({ bulk, ...message }) {
        if (bulk)
          pooled ??= nodemailer.createTransport({ url: options.smtpUrl, pool: true, maxConnections: 1, ...SMTP_TIMEOUTS });
        const info = await (bulk && pooled ? pooled : transport).sendMail({ from: options.from, ...message });
        return { messageId: info.messageId };
      },
      messageIdFor: idFor,
      close: () => {
        transport.close();
        pooled?.close();
      },
    };
  }
  const dir = join(options.dataDir, 'mail');
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send({ bulk: _bulk, ...message }) {
      const info = await transport.sendMail({ from: options.from, ...message });
      mkdirSync(dir, { recursive: true });
      const file = join(dir, devMailFileName(new Date(), message.to, info.messageId));
      writeFileSync(file, info.message as Buffer);
      options.log.info('e-mail written to file (SMTP_URL is not set)', { to: message.to, subject: message.subject, file });
      return { messageId: info.messageId, file };
    },
    messageIdFor: idFor,
    close: () => transport.close(),
  };
}
