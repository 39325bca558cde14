import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * A real SMTP server on a random port that keeps every message it receives, parsed. Recipients added
 * with `refuse()` are turned away with a permanent error (550), as a real server refuses a mailbox.
 */
export async function startSmtp(options: { delayMs?: number } = {}) {
  const messages: ParsedMail[] = [];
  const refused = new Set<string>();
  let receiving = 0;
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (!refused.has(address.address.toLowerCase())) return callback();
      callback(Object.assign(new Error(`5.1.1 <${address.address}>: mailbox unavailable`), { responseCode: 550 }));
    },
    onData(stream, _session, callback) {
      const started = Date.now();
      receiving++;
      simpleParser(stream)
        .then(async (mail) => {
          const wait = (options.delayMs ?? 0) - (Date.now() - started);
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          receiving--;
          messages.push(mail);
          for (const wake of waiters) wake();
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;

  /** Resolves with the first message matching `predicate`, or fails after `timeoutMs`. */
  async function waitFor(predicate: (mail: ParsedMail) => boolean, timeoutMs = 15_000): Promise<ParsedMail> {
    const found = () => messages.find(predicate);
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const mail = found();
      if (mail) return mail;
      await new Promise<void>((resolve) => {
        const wake = () => {
          waiters.delete(wake);
          resolve();
        };
        waiters.add(wake);
        setTimeout(wake, 200);
      });
    }
    throw new Error(`no matching e-mail within ${timeoutMs} ms (received ${messages.length})`);
  }

  const to = (address: string) => (mail: ParsedMail) =>
    [mail.to].flat().some((t) => t?.value.some((v) => v.address?.toLowerCase() === address.toLowerCase()));

  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    /** How many messages are being received right now. */
    receiving: () => receiving,
    waitFor,
    to,
    /** Refuses (550) every message to `address` until `accept(address)`. */
    refuse: (address: string) => void refused.add(address.toLowerCase()),
    accept: (address: string) => void refused.delete(address.toLowerCase()),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type TestSmtp = Awaited<ReturnType<typeof startSmtp>>;
