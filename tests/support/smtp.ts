import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * A real SMTP server on a random port that keeps every message it receives, parsed. Recipients added
 * with `refuse()` are turned away with a permanent error (550), as a real server refuses a mailbox;
 * with `defer()` with a temporary one (451, greylisting or a full queue); with `hang()` the server
 * never answers their RCPT TO (the client's socket timeout must end the attempt).
 */
export async function startSmtp(options: { delayMs?: number } = {}) {
  const messages: ParsedMail[] = [];
  const refused = new Set<string>();
  const deferred = new Set<string>();
  const hung = new Set<string>();
  let receiving = 0;
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const rcpt = address.address.toLowerCase();
      if (hung.has(rcpt)) return; // never answers
      if (deferred.has(rcpt)) {
        return callback(
          Object.assign(new Error(`4.3.0 <${address.address}>: temporarily unavailable, try again later`), { responseCode: 451 }),
        );
      }
      if (!refused.has(rcpt)) return callback();
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
  // A client that dies mid-session (a worker killed by a scenario) resets its connection: smtp-server
  // reports that as an 'error' event, which with no listener ends the test run.
  server.on('error', () => undefined);
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
    /** Answers 451 (try again later) to every message to `address` until `accept(address)`. */
    defer: (address: string) => void deferred.add(address.toLowerCase()),
    /** Never answers RCPT TO for `address` until `accept(address)`. */
    hang: (address: string) => void hung.add(address.toLowerCase()),
    /** Takes messages to `address` again (undoes refuse, defer and hang). */
    accept: (address: string) => {
      for (const set of [refused, deferred, hung]) set.delete(address.toLowerCase());
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type TestSmtp = Awaited<ReturnType<typeof startSmtp>>;
