import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger.ts';
import { createMailer } from '../../src/modules/mail/index.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'dev-mail-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it('writes development e-mails (no SMTP_URL) to files whose names keep the recipient readable', async () => {
  const mailer = createMailer({ from: 'shop@example.jp', dataDir, log: createLogger('silent') });
  const sent = [
    await mailer.send({ to: 'demo-member@example.jp', subject: '件名', text: '本文', html: '<p>本文</p>' }),
    await mailer.send({ to: 'sato_100%+tag@hospital.example.jp', subject: '件名', text: '本文', html: '<p>本文</p>' }),
    await mailer.send({ to: 'demo-member@example.jp', subject: '二通目', text: '本文', html: '<p>本文</p>' }),
  ];
  mailer.close();
  const names = sent.map((s) => basename(s.file as string));
  expect(names[0]).toMatch(/^\d{4}-\d{2}-\d{2}T[\d-]+Z_demo-member@example\.jp_[0-9a-f-]{8}\.eml$/);
  // Characters a file name should not hold become `_`; the address stays readable.
  expect(names[1]).toContain('_sato_100_+tag@hospital.example.jp_');
  // Two mails to one address in the same millisecond still get their own files.
  expect(new Set(names).size).toBe(3);
  expect(readdirSync(join(dataDir, 'mail')).sort()).toEqual([...names].sort());
  expect(readFileSync(sent[0]?.file as string, 'utf8')).toContain('demo-member@example.jp');
});
