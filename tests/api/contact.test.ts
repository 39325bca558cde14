import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueFormToken } from '../../src/modules/contact/index.ts';
import { aMember } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { settled } from '../support/settle.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';

// Issue 35 item 3: お問い合わせ through the API, a real SMTP server and the mail worker.
const CONTACT_TO = 'shop-desk@example.jp';
let smtp: TestSmtp;
let t: TestRuntime;
let seq = 0;

beforeAll(async () => {
  smtp = await startSmtp();
  t = await startTestRuntime({ mode: 'all', smtpUrl: smtp.url, env: { CONTACT_TO } });
}, 60_000);
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

/** A form opened `ago` ms before it is sent, as a person would (signed by the server's own secret). */
const openedAgo = (ago = 10_000) => issueFormToken(t.runtime.deps.authSecret, Date.now() - ago);
const question = (patch: Record<string, unknown> = {}) => ({
  name: '看護 花子',
  email: `asker-${++seq}@example.jp`,
  category: '領収書の再発行（退会済みの方）',
  order_number: 'LS-2026-ABCDEF',
  message: '退会前に購入したライセンスの領収書が必要になりました。\n再発行をお願いできますか。',
  form_token: openedAgo(),
  website: '',
  ...patch,
});
const mailsTo = (address: string) => smtp.messages.filter(smtp.to(address));

describe('POST /api/contact', () => {
  it('sends the question to CONTACT_TO with Reply-To the sender, and an acknowledgement to the sender', async () => {
    const guest = new TestClient(t.app, '10.81.0.1');
    const form = await (await guest.get('/api/contact/form')).json();
    expect(form.categories).toContain('領収書の再発行（退会済みの方）');
    expect(form.message_max).toBe(2000);
    const body = question();
    const res = await guest.post('/api/contact', body);
    expect(res.status).toBe(202);
    expect((await res.json()).message).toContain('お問い合わせを受け付けました');

    const toShop = await smtp.waitFor((m) => smtp.to(CONTACT_TO)(m) && (m.text ?? '').includes(body.email));
    expect(toShop.subject).toBe('【ライセンスストア】お問い合わせ：領収書の再発行（退会済みの方）');
    expect(toShop.replyTo?.value.map((a) => a.address)).toEqual([body.email]);
    expect(toShop.text).toContain('お名前：看護 花子');
    expect(toShop.text).toContain('ご注文番号：LS-2026-ABCDEF');
    expect(toShop.text).toContain('再発行をお願いできますか。');
    const ack = await smtp.waitFor(smtp.to(body.email));
    expect(ack.subject).toBe('【ライセンスストア】お問い合わせを受け付けました');
    expect(ack.text?.split('\n')[0]).toBe('看護 花子 様');
    expect(ack.text).toContain('お問い合わせの種類：領収書の再発行（退会済みの方）');
    // A guest may type anyone's address: their text is not carried to it.
    expect(ack.text).not.toContain('再発行をお願いできますか');
    await settled(t.runtime.deps, 'the contact mails');
    expect(mailsTo(body.email)).toHaveLength(1);
  });

  it('quotes the message back to a signed-in member writing from their own address', async () => {
    const m = await aMember(t.runtime.deps.orm, { lastName: '救急', firstName: '一郎' });
    const member = new TestClient(t.app, '10.81.0.2');
    expect((await member.login(m.email, m.password)).status).toBe(200);
    const res = await member.post(
      '/api/contact',
      question({ name: '救急 一郎', email: m.email, message: '研修の日程を教えてください。' }),
    );
    expect(res.status).toBe(202);
    const ack = await smtp.waitFor((mail) => smtp.to(m.email)(mail) && mail.subject?.includes('受け付けました') === true);
    expect(ack.text).toContain('研修の日程を教えてください。');
    // In the member's mail log, under the acknowledgement's kind.
    const logged = await t.runtime.deps.orm.em.fork().execute('select template from mail_deliveries where user_id = ?', [m.id]);
    expect(logged.map((row) => row.template)).toContain('contact-ack');
  });

  it('refuses line breaks in single-line fields (no header injection), a long message and unknown categories, in Japanese', async () => {
    const guest = new TestClient(t.app, '10.81.0.3');
    const cases: [Record<string, unknown>, string][] = [
      [{ name: '花子\r\nBcc: victim@example.jp' }, 'name'],
      [{ email: 'a@example.jp\r\nBcc: victim@example.jp' }, 'email'],
      [{ order_number: 'LS\nX' }, 'order_number'],
      [{ message: 'あ'.repeat(2001) }, 'message'],
      [{ message: '' }, 'message'],
      [{ category: '営業のご案内' }, 'category'],
    ];
    for (const [patch, field] of cases) {
      const res = await guest.post('/api/contact', question(patch));
      expect(res.status, JSON.stringify(patch)).toBe(422);
      const errors = (await res.json()).errors;
      expect(Object.keys(errors), JSON.stringify(patch)).toContain(field);
      expect(errors[field][0]).toMatch(/[ぁ-んァ-ン一-龥]/);
    }
    expect((await guest.post('/api/contact', question({ message: 'あ'.repeat(2000) }))).status).toBe(202);
  });

  it('stops scripts: a form sent faster than a person types, a forged or missing token (422), a filled honeypot (202, nothing sent)', async () => {
    const guest = new TestClient(t.app, '10.81.0.4');
    const fresh = await (await guest.get('/api/contact/form')).json();
    const fast = await guest.post('/api/contact', question({ form_token: fresh.form_token }));
    expect(fast.status).toBe(422);
    expect((await fast.json()).errors.form_token[0]).toContain('短すぎます');
    for (const form_token of ['', `${Date.now() - 60_000}.forged`, issueFormToken('another-secret', Date.now() - 60_000)]) {
      const res = await guest.post('/api/contact', question({ form_token }));
      expect(res.status, form_token).toBe(422);
      expect((await res.json()).errors.form_token[0]).toContain('ページを再読み込み');
    }
    const yesterday = await guest.post('/api/contact', question({ form_token: openedAgo(25 * 3_600_000) }));
    expect(yesterday.status).toBe(422);

    const bot = question({ website: 'http://spam.example' });
    const trapped = await guest.post('/api/contact', bot);
    expect(trapped.status).toBe(202);
    await settled(t.runtime.deps, 'anything the honeypot might have sent');
    expect(mailsTo(bot.email as string)).toHaveLength(0);
    expect(smtp.messages.filter((m) => (m.text ?? '').includes(bot.email as string))).toHaveLength(0);
  });

  it('limits per mailbox (3 an hour) and per calling network (20 an hour): 429 in Japanese with Retry-After', async () => {
    const email = `flood-${Date.now()}@example.jp`;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await new TestClient(t.app, `10.82.${i}.1`).post('/api/contact', question({ email }))).status);
    }
    expect(statuses).toEqual([202, 202, 202, 429]);

    const network = new TestClient(t.app, '10.83.0.1');
    const answers: Response[] = [];
    for (let i = 0; i < 21; i++) answers.push(await network.post('/api/contact', question()));
    const last = answers.at(-1) as Response;
    expect(answers.slice(0, 20).map((res) => res.status)).toEqual(Array(20).fill(202));
    expect(last.status).toBe(429);
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await last.json()).message).toContain('しばらく時間をおいて');
    // Another network is not affected.
    expect((await new TestClient(t.app, '10.84.0.1').post('/api/contact', question())).status).toBe(202);
  });
});
