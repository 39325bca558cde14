import type { AddressInfo, Socket } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * How the fault SMTP server answers, switched by the test while the shop runs:
 * - ok: accepts every message;
 * - tempfail: 451 at RCPT TO (a temporary failure: greylisting, a full queue);
 * - reject: 550 at RCPT TO (no such mailbox: permanent);
 * - hang: never answers MAIL FROM (the connection stays open, silent);
 * - drop: reads the whole message, keeps it (the server has accepted it), then cuts the connection
 *   instead of answering 250 — the client cannot know the message went through.
 */
export type SmtpMode = 'ok' | 'tempfail' | 'reject' | 'hang' | 'drop';

export interface Received {
  messageId: string;
  to: string;
  subject: string;
  text: string;
  mode: SmtpMode;
  at: number;
}

export async function startFaultSmtp() {
  let mode: SmtpMode = 'ok';
  const received: Received[] = [];
  const refusals: { to: string; code: number; at: number }[] = [];
  const held = new Set<(error?: Error) => void>();
  let hangs = 0;
  let replyDelayMs = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    closeTimeout: 1_000,
    onMailFrom(_address, _session, callback) {
      if (mode !== 'hang') return callback();
      hangs++;
      held.add(callback);
    },
    onRcptTo(address, _session, callback) {
      const to = address.address.toLowerCase();
      if (mode === 'tempfail') {
        refusals.push({ to, code: 451, at: Date.now() });
        return callback(Object.assign(new Error('4.7.1 Try again later (fault suite)'), { responseCode: 451 }));
      }
      if (mode === 'reject') {
        refusals.push({ to, code: 550, at: Date.now() });
        return callback(Object.assign(new Error(`5.1.1 <${address.address}>: mailbox unavailable`), { responseCode: 550 }));
      }
      callback();
    },
    onData(stream, session, callback) {
      const modeAtData = mode;
      simpleParser(stream)
        .then((mail) => {
          const to = [mail.to]
            .flat()
            .flatMap((t) => t?.value ?? [])
            .map((v) => v.address?.toLowerCase() ?? '');
          for (const address of to) {
            received.push({
              messageId: mail.messageId ?? '',
              to: address,
              subject: mail.subject ?? '',
              text: mail.text ?? '',
              mode: modeAtData,
              at: Date.now(),
            });
          }
          if (modeAtData === 'drop') {
            socketOf(session.id)?.destroy();
            return;
          }
          if (replyDelayMs > 0) setTimeout(() => callback(), replyDelayMs);
          else callback();
        })
        .catch(callback);
    },
  });
  const socketOf = (sessionId: string) => {
    const connections = (server as unknown as { connections: Set<{ id: string; _socket: Socket }> }).connections;
    for (const connection of connections) if (connection.id === sessionId) return connection._socket;
    return undefined;
  };
  // A client that dies mid-session (a worker killed by a scenario) resets its connection: smtp-server
  // reports that as an 'error' event, which with no listener ends the test run.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;

  const release = () => {
    for (const callback of held) callback(Object.assign(new Error('4.4.2 Timed out (fault suite)'), { responseCode: 421 }));
    held.clear();
  };

  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    refusals,
    mode: () => mode,
    /** How many MAIL FROM commands were left unanswered in `hang` mode. */
    hangs: () => hangs,
    setMode(next: SmtpMode) {
      if (mode === 'hang' && next !== 'hang') release();
      mode = next;
    },
    /** Keeps each accepted message (it counts as received) but answers 250 only after `ms`. */
    setReplyDelay(ms: number) {
      replyDelayMs = ms;
    },
    to: (address: string) => received.filter((r) => r.to === address.toLowerCase()),
    close: () =>
      new Promise<void>((resolve) => {
        release();
        server.close(() => resolve());
      }),
  };
}
export type FaultSmtp = Awaited<ReturnType<typeof startFaultSmtp>>;
