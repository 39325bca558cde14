import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrPromoteAdmin } from '../../src/modules/accounts/index.ts';
import { aLicense, aMember, aSale } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { freshCode, secretOf } from '../support/two-factor.ts';
import { eventually } from '../support/wait.ts';

let smtp: TestSmtp;
let t: TestRuntime;
let admin: TestClient;
let adminId: string;
const ids: Record<string, string> = {};

const people = [
  { key: 'yamada', email: 'yamada.taro@fire.example.jp', lastName: '山田', firstName: '太郎', affiliation: 4 },
  { key: 'yamamoto', email: 'yamamoto@police.example.jp', lastName: '山本', firstName: '花子', affiliation: 2 },
  { key: 'sato', email: 'sato_100%@hospital.example.jp', lastName: '佐藤', firstName: '山男', affiliation: 5 },
];

beforeAll(async () => {
  // Workers run: a deleted user's sales lose their account link through UserDeleted; mail goes to a real SMTP server.
  smtp = await startSmtp();
  t = await startTestRuntime({ mode: 'all', smtpUrl: smtp.url });
  adminId = (await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'boss@example.jp', password: 'boss-pass-123' })).user.id;
  for (const p of people) {
    const person = { email: p.email, lastName: p.lastName, firstName: p.firstName, affiliation: p.affiliation };
    const user = await aMember(t.runtime.deps.orm, { ...person, affiliationName: '所属' });
    ids[p.key] = user.id;
  }
  admin = new TestClient(t.app, '10.50.0.1');
  await admin.login('boss@example.jp', 'boss-pass-123');
});
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

const emails = async (query: string) =>
  ((await (await admin.get(`/api/users${query}`)).json()).users as { email: string }[]).map((u) => u.email).sort();

describe('GET /api/users', () => {
  it('searches by 姓 or 名 (partial), e-mail (partial) and affiliation', async () => {
    expect(await emails(`?name=${encodeURIComponent('山')}`)).toEqual(
      [people[2]?.email, people[0]?.email, people[1]?.email].sort(),
    );
    expect(await emails(`?name=${encodeURIComponent('花')}`)).toEqual([people[1]?.email]);
    expect(await emails('?email=police')).toEqual([people[1]?.email]);
    expect(await emails('?affiliations=4')).toEqual([people[0]?.email]);
    expect(await emails(`?name=${encodeURIComponent('山')}&affiliations=5`)).toEqual([people[2]?.email]);
    // LIKE wildcards are taken literally.
    expect(await emails('?email=100%25')).toEqual([people[2]?.email]);
    expect(await emails('?email=_')).toEqual([people[2]?.email]);
  });

  it('pages and sorts, and refuses bad parameters', async () => {
    const page = await (await admin.get('/api/users?per_page=2&page=2&sort=email')).json();
    expect(page).toMatchObject({ page: 2, per_page: 2, total: 4 });
    expect(page.users).toHaveLength(2);
    expect((await admin.get('/api/users?affiliations=7')).status).toBe(422);
    expect((await admin.get('/api/users?per_page=101')).status).toBe(422);
    expect((await admin.get('/api/users?sort=password')).status).toBe(422);
  });

  it('is for administrators only', async () => {
    const member = new TestClient(t.app, '10.50.0.2');
    await member.login(people[0]?.email as string, 'member-pass-123');
    expect((await member.get('/api/users')).status).toBe(403);
    expect((await new TestClient(t.app).get('/api/users')).status).toBe(401);
    expect(
      (
        await member.request('PUT', `/api/users/${ids.yamamoto}/password/force`, {
          json: { new_password: 'x'.repeat(10), new_password_confirmation: 'x'.repeat(10) },
        })
      ).status,
    ).toBe(403);
    expect((await member.request('DELETE', `/api/users/${ids.yamamoto}/force`)).status).toBe(403);
  });
});

describe('administrator changes', () => {
  it('edits a user at once (e-mail included) and audits it', async () => {
    const body = {
      email: 'sato.new@hospital.example.jp',
      email_confirmation: 'sato.new@hospital.example.jp',
      last_name: '佐藤',
      first_name: '一郎',
      affiliations: 6,
      affiliation_other: '研究機関',
      affiliation_name: '〇〇研究所',
      distribution: false,
    };
    expect((await admin.post(`/api/users/${ids.sato}`, body)).status).toBe(200);
    const res = await admin.put(`/api/users/${ids.sato}`, body);
    expect(res.status).toBe(200);
    const saved = await res.json();
    expect(saved.user).toMatchObject({
      email: 'sato.new@hospital.example.jp',
      first_name: '一郎',
      affiliations: 6,
      pending_email: null,
    });
    // The page says what happened, and both addresses are told (the mail job: tests/workers/account-mails).
    expect(saved.message).toBe(
      '会員情報を更新しました。メールアドレスはすぐに変更され、新旧のメールアドレスにお知らせを送信しました。',
    );
    const told = await t.runtime.deps.orm.em
      .fork()
      .execute("select payload from outbox_events where name = 'EmailChangedByAdmin' and payload->>'userId' = ?", [ids.sato]);
    expect(told.map((r) => (r.payload as { oldEmail: string }).oldEmail)).toEqual([people[2]?.email]);
    const audit = await t.runtime.deps.orm.em
      .fork()
      .execute("select action, actor_id, before, after from audit_logs where target_id = ? and action = 'user.update'", [
        ids.sato,
      ]);
    expect(audit[0]).toMatchObject({ actor_id: adminId });
    expect(audit[0]?.before.first_name).toBe('山男');
    expect(audit[0]?.after.first_name).toBe('一郎');
  });

  it('an administrator changing their own e-mail gives the current password and a code, as a member does', async () => {
    const email = 'self-edit@example.jp';
    const password = 'self-edit-pass-123';
    const { user } = await createOrPromoteAdmin(t.runtime.deps.orm, { email, password, lastName: '管理', firstName: '自身' });
    const self = new TestClient(t.app, '10.50.0.7');
    expect((await self.login(email, password)).status).toBe(200);
    const profile = {
      last_name: '管理',
      first_name: '自身',
      affiliations: 1,
      affiliation_name: '本部',
      distribution: false,
    };
    const moved = { ...profile, email: 'self-moved@example.jp', email_confirmation: 'self-moved@example.jp' };
    const cases: [Record<string, unknown>, Record<string, string[]>][] = [
      [moved, { current_password: ['メールアドレスを変更するには、現在のパスワードを入力してください。'] }],
      [
        { ...moved, current_password: 'wrong-pass-123', code: '123456' },
        { current_password: ['現在のパスワードが正しくありません。'] },
      ],
      [{ ...moved, current_password: password }, { code: ['確認コードを入力してください。'] }],
    ];
    for (const [body, errors] of cases) {
      const res = await self.put(`/api/users/${user.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect((await res.json()).errors).toEqual(errors);
    }
    const unchanged = await (await self.get(`/api/users/${user.id}`)).json();
    expect(unchanged.user.email).toBe(email);
    // The rest of one's own record needs nothing more; another member's address is an administrator's call.
    const renamed = await self.put(`/api/users/${user.id}`, { ...profile, email, email_confirmation: email, first_name: '改名' });
    expect(renamed.status, await renamed.clone().text()).toBe(200);

    const code = await freshCode(secretOf(email) ?? '');
    const res = await self.put(`/api/users/${user.id}`, { ...moved, current_password: password, code });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await res.json()).user.email).toBe('self-moved@example.jp');
  });

  it('forces a new password and ends the user\u2019s sessions', async () => {
    const member = new TestClient(t.app, '10.50.0.3');
    await member.login(people[1]?.email as string, 'member-pass-123');
    const bad = await admin.put(`/api/users/${ids.yamamoto}/password/force`, {
      new_password: 'short',
      new_password_confirmation: 'short',
    });
    expect(bad.status).toBe(422);
    const res = await admin.put(`/api/users/${ids.yamamoto}/password/force`, {
      new_password: 'forced-pass-123',
      new_password_confirmation: 'forced-pass-123',
    });
    expect(res.status).toBe(200);
    expect((await (await member.get('/api/login')).json()).users).toEqual([]);
    expect((await new TestClient(t.app, '10.50.0.4').login(people[1]?.email as string, 'forced-pass-123')).status).toBe(200);
  });

  it('deletes an account but keeps its sales with the buyer snapshot', async () => {
    const member = new TestClient(t.app, '10.50.0.5');
    await member.login(people[0]?.email as string, 'member-pass-123');
    const em = t.runtime.deps.orm.em.fork();
    const license = await aLicense(t.runtime.deps.orm, { name: 'L', price: 1000 });
    await aSale(t.runtime.deps.orm, license, {
      userId: ids.yamada,
      email: people[0]?.email,
      affiliation: null,
      affiliationName: '所属',
      amount: 1000,
      stripeSessionId: 'cs_test_keep',
    });
    const res = await admin.request('DELETE', `/api/users/${ids.yamada}/force`);
    expect(res.status).toBe(200);
    expect((await admin.get(`/api/users/${ids.yamada}`)).status).toBe(404);
    expect((await (await member.get('/api/login')).json()).users).toEqual([]);
    const sale = await eventually(
      async () => {
        const rows = await em.execute("select user_id, buyer_email from sales where stripe_session_id = 'cs_test_keep'");
        return rows[0]?.user_id === null && rows;
      },
      10_000,
      'UserDeleted to reach the sales module',
    );
    expect(sale[0]).toEqual({ user_id: null, buyer_email: people[0]?.email });
    expect((await admin.request('DELETE', `/api/users/${adminId}/force`)).status).toBe(403);
    expect((await admin.request('DELETE', '/api/users/00000000-0000-0000-0000-000000000000/force')).status).toBe(404);
  });
});

describe('PUT /api/users/{id}/role', () => {
  it('grants and revokes administrator rights, audited; never demotes oneself or the last administrator', async () => {
    const member = await aMember(t.runtime.deps.orm, {
      email: 'promote-me@example.jp',
      password: 'promote-pass-1',
      lastName: '昇格',
      firstName: '候補',
      emailVerified: true,
    });
    const memberClient = new TestClient(t.app, '10.51.0.9');
    await memberClient.login('promote-me@example.jp', 'promote-pass-1');
    expect((await memberClient.put(`/api/users/${member.id}/role`, { role: 'admin' })).status).toBe(403);
    expect((await admin.put(`/api/users/${member.id}/role`, { role: 'owner' })).status).toBe(422);

    const granted = await admin.put(`/api/users/${member.id}/role`, { role: 'admin' });
    expect(granted.status).toBe(200);
    expect((await granted.json()).user.role).toBe('admin');
    // Their sessions end: the next sign-in carries the new role.
    expect((await (await memberClient.get('/api/login')).json()).users).toEqual([]);
    const again = new TestClient(t.app, '10.51.0.10');
    await again.login('promote-me@example.jp', 'promote-pass-1');
    expect((await again.get('/api/users?per_page=1')).status).toBe(200);

    expect((await admin.put(`/api/users/${adminId}/role`, { role: 'user' })).status).toBe(403);
    const revoked = await again.put(`/api/users/${adminId}/role`, { role: 'user' });
    expect(revoked.status).toBe(200);
    // Nobody demotes themselves.
    expect((await again.put(`/api/users/${member.id}/role`, { role: 'user' })).status).toBe(403);
    const audit = await t.runtime.deps.orm.em
      .fork()
      .execute("select count(*)::int as n from audit_logs where action = 'user.role'");
    expect(audit[0]?.n).toBe(2);
    // Restore the original administrator for the other tests.
    expect((await again.put(`/api/users/${adminId}/role`, { role: 'admin' })).status).toBe(200);
  });

  it('keeps an administrator when two demote each other at once', async () => {
    const make = (email: string) =>
      aMember(t.runtime.deps.orm, {
        email,
        password: 'mutual-pass-1',
        lastName: '相互',
        firstName: '管理',
        emailVerified: true,
        role: 'admin',
      });
    const a = await make('mutual-a@example.jp');
    const b = await make('mutual-b@example.jp');
    const em = t.runtime.deps.orm.em.fork();
    // Only these two are administrators now.
    await em.execute("update users set role = 'user' where role = 'admin' and id not in (?, ?)", [a.id, b.id]);
    const ca = new TestClient(t.app, '10.51.0.20');
    const cb = new TestClient(t.app, '10.51.0.21');
    await ca.login('mutual-a@example.jp', 'mutual-pass-1');
    await cb.login('mutual-b@example.jp', 'mutual-pass-1');
    const answers = await Promise.all([
      ca.put(`/api/users/${b.id}/role`, { role: 'user' }),
      cb.put(`/api/users/${a.id}/role`, { role: 'user' }),
    ]);
    expect(answers.map((r) => r.status).filter((s) => s === 200)).toHaveLength(1);
    const left = await em.execute("select count(*)::int as n from users where role = 'admin'");
    expect(left[0]?.n).toBe(1);
    // The survivor is the last administrator: deleting or demoting them is refused.
    const survivor = answers[0]?.status === 200 ? ca : cb;
    const survivorId = answers[0]?.status === 200 ? a.id : b.id;
    expect((await survivor.request('DELETE', `/api/users/${survivorId}/force`)).status).toBe(409);
    expect((await survivor.put(`/api/users/${survivorId}/role`, { role: 'user' })).status).toBe(409);
    await em.execute("update users set role = 'admin' where id = ?", [adminId]);
  });
});

/** The role tests above end the administrator's sessions (a role change signs the user out). */
const signInAgain = async () => {
  expect((await admin.login('boss@example.jp', 'boss-pass-123')).status).toBe(200);
};

/** A member made directly in the database (no mail unless `verified` is false). */
async function newMember(email: string, verified = true) {
  const person = { email, lastName: '試験', firstName: '会員', emailVerified: verified };
  const user = await aMember(t.runtime.deps.orm, { ...person, affiliation: 1, affiliationName: '本部' });
  return user.id;
}

const profile = (email: string, changes: Record<string, unknown> = {}) => ({
  email,
  email_confirmation: email,
  last_name: '試験',
  first_name: '会員',
  affiliations: 1,
  affiliation_name: '本部',
  affiliation_other: null,
  distribution: true,
  ...changes,
});

const STALE =
  'この会員情報は、別の画面または管理者によって先に更新されています。最新の内容を読み込んでから、もう一度変更してください。';

describe('user edits carry updated_at', () => {
  beforeAll(signInAgain);

  it('is in every user answer the SPA reads', async () => {
    const id = await newMember('version-shown@example.jp');
    const one = (await (await admin.get(`/api/users/${id}`)).json()).user;
    expect(Date.parse(one.updated_at)).not.toBeNaN();
    const listed = (await (await admin.get('/api/users?email=version-shown')).json()).users[0];
    expect(listed.updated_at).toBe(one.updated_at);
    const member = new TestClient(t.app, '10.52.0.1');
    const me = (await (await member.login('version-shown@example.jp', 'member-pass-123')).json()).users[0];
    expect(me.updated_at).toBe(one.updated_at);
    expect((await (await member.get('/api/login')).json()).users[0].updated_at).toBe(one.updated_at);
  });

  it('an administrator saving over a newer version gets 409 at confirm and at save, and nothing changes', async () => {
    const id = await newMember('stale-admin@example.jp');
    const loaded = (await (await admin.get(`/api/users/${id}`)).json()).user.updated_at as string;
    const first = await admin.put(
      `/api/users/${id}`,
      profile('stale-admin@example.jp', { first_name: '先', updated_at: loaded }),
    );
    expect(first.status).toBe(200);
    const saved = (await first.json()).user;
    expect(saved.first_name).toBe('先');
    expect(saved.updated_at).not.toBe(loaded);

    const late = profile('stale-admin@example.jp', { first_name: '後', updated_at: loaded });
    const check = await admin.post(`/api/users/${id}`, late);
    expect(check.status).toBe(409);
    expect((await check.json()).message).toBe(STALE);
    const save = await admin.put(`/api/users/${id}`, late);
    expect(save.status).toBe(409);
    expect((await save.json()).message).toBe(STALE);
    const now = (await (await admin.get(`/api/users/${id}`)).json()).user;
    expect(now).toMatchObject({ first_name: '先', updated_at: saved.updated_at });

    // The version just answered saves.
    expect((await admin.put(`/api/users/${id}`, { ...late, updated_at: saved.updated_at })).status).toBe(200);
    expect((await admin.post(`/api/users/${id}`, { ...late, updated_at: 'yesterday' })).status).toBe(422);
  });

  it('a member saving their own page over an administrator\u2019s change gets 409', async () => {
    const id = await newMember('stale-member@example.jp');
    const member = new TestClient(t.app, '10.52.0.2');
    await member.login('stale-member@example.jp', 'member-pass-123');
    const loaded = (await (await member.get(`/api/users/${id}`)).json()).user.updated_at as string;
    expect(
      (await admin.put(`/api/users/${id}`, profile('stale-member@example.jp', { affiliation_name: '管理者が変更' }))).status,
    ).toBe(200);
    const mine = profile('stale-member@example.jp', { affiliation_name: '本人が変更', updated_at: loaded });
    expect((await member.post(`/api/users/${id}`, mine)).status).toBe(409);
    const save = await member.put(`/api/users/${id}`, mine);
    expect(save.status).toBe(409);
    expect((await save.json()).message).toBe(STALE);
    expect((await (await member.get(`/api/users/${id}`)).json()).user.affiliation_name).toBe('管理者が変更');
  });

  it('of two edits of one version sent at once, exactly one saves', async () => {
    const id = await newMember('race@example.jp');
    const other = new TestClient(t.app, '10.52.0.3');
    await other.login('boss@example.jp', 'boss-pass-123');
    const member = new TestClient(t.app, '10.52.0.4');
    await member.login('race@example.jp', 'member-pass-123');
    for (const [round, second] of [admin, member, admin, member, admin].entries()) {
      const loaded = (await (await admin.get(`/api/users/${id}`)).json()).user.updated_at as string;
      const answers = await Promise.all([
        other.put(`/api/users/${id}`, profile('race@example.jp', { affiliation_name: `A${round}`, updated_at: loaded })),
        second.put(`/api/users/${id}`, profile('race@example.jp', { affiliation_name: `B${round}`, updated_at: loaded })),
      ]);
      expect(answers.map((r) => r.status).sort(), `round ${round}`).toEqual([200, 409]);
      const winner = answers[0]?.status === 200 ? `A${round}` : `B${round}`;
      expect((await (await admin.get(`/api/users/${id}`)).json()).user.affiliation_name).toBe(winner);
    }
  });
});

describe('GET /api/users/{id}/mails', () => {
  beforeAll(signInAgain);

  it('lists a member\u2019s mails newest first: one sent, one refused by the server for good and then resent', async () => {
    const email = 'mail-log@example.jp';
    const id = await newMember(email, false);
    // Registration sends the verification mail (UserRegistered → worker → SMTP).
    await smtp.waitFor(smtp.to(email));
    const sent = await eventually(async () => {
      const body = await (await admin.get(`/api/users/${id}/mails`)).json();
      return body.mails[0]?.status === 'sent' && body;
    });
    expect(sent).toMatchObject({ total: 1, page: 1, per_page: 20 });
    expect(sent.mails[0]).toMatchObject({
      kind: 'verification',
      kind_label: 'メールアドレスの確認',
      recipient: email,
      subject: '【ライセンスストア】メールアドレスの確認をお願いします',
      status: 'sent',
      failed_at: null,
      error: null,
      attempts: 1,
    });
    expect(Date.parse(sent.mails[0].sent_at)).not.toBeNaN();

    // The server refuses the next one: the attempt is in the log, with the server's answer.
    smtp.refuse(email);
    expect((await admin.post(`/api/users/${id}/verification-mail`)).status).toBe(200);
    const failed = await eventually(async () => {
      const body = await (await admin.get(`/api/users/${id}/mails`)).json();
      return body.mails[0]?.status === 'failed' && body;
    });
    expect(failed.total).toBe(2);
    expect(failed.mails[0]).toMatchObject({
      kind: 'verification',
      kind_label: 'メールアドレスの確認',
      recipient: email,
      sent_at: null,
    });
    expect(failed.mails[0].error).toMatch(/550/);
    expect(failed.mails[0].attempts).toBeGreaterThanOrEqual(1);
    expect(Date.parse(failed.mails[0].failed_at)).not.toBeNaN();
    expect(failed.mails[1].id).toBe(sent.mails[0].id);

    // Paged: the older mail is page 2 of one per page.
    const second = await (await admin.get(`/api/users/${id}/mails?per_page=1&page=2`)).json();
    expect(second).toMatchObject({ total: 2, page: 2, per_page: 1 });
    expect(second.mails.map((m: { id: string }) => m.id)).toEqual([sent.mails[0].id]);

    // Refused for good (550): no retry. The mailbox is fixed and an operator resends it: it goes out
    // once, with the same Message-ID the refused attempt carried, and the row says so.
    expect(failed.mails[0].permanent).toBe(true);
    smtp.accept(email);
    expect((await admin.post(`/api/mails/${failed.mails[0].id}/resend`)).status).toBe(200);
    const retried = await eventually(
      async () => {
        const body = await (await admin.get(`/api/users/${id}/mails`)).json();
        return body.mails[0]?.status === 'sent' && body.mails[0];
      },
      20_000,
      'the resent mail',
    );
    expect(retried.attempts).toBe(2);
    expect(retried.error).toBeNull();
    expect(retried.permanent).toBe(false);
    expect(retried.failed_at).not.toBeNull();
    expect(retried.message_id).toBe(failed.mails[0].message_id);
    const copies = smtp.messages.filter(smtp.to(email));
    expect(copies).toHaveLength(2);
    expect(copies[1]?.messageId).toBe(retried.message_id);
    expect(copies[0]?.messageId).not.toBe(retried.message_id);
  });

  it('is for administrators only, 404 for nobody, 422 for a bad page', async () => {
    const id = await newMember('mail-log-guard@example.jp');
    const member = new TestClient(t.app, '10.52.0.5');
    await member.login('mail-log-guard@example.jp', 'member-pass-123');
    expect((await member.get(`/api/users/${id}/mails`)).status).toBe(403);
    expect((await new TestClient(t.app).get(`/api/users/${id}/mails`)).status).toBe(401);
    const nobody = await admin.get('/api/users/00000000-0000-4000-8000-000000000000/mails');
    expect(nobody.status).toBe(404);
    expect((await nobody.json()).message).toBe('ユーザーが見つかりませんでした。');
    const bad = await admin.get(`/api/users/${id}/mails?per_page=101`);
    expect(bad.status).toBe(422);
    expect((await bad.json()).errors.per_page).toEqual(['表示件数が正しくありません。']);
    expect(await (await admin.get(`/api/users/${id}/mails`)).json()).toEqual({ mails: [], total: 0, page: 1, per_page: 20 });
  });
});

describe('POST /api/users/{id}/verification-mail', () => {
  beforeAll(signInAgain);

  const em = () => t.runtime.deps.orm.em.fork();

  it('sends an unverified member a new link (audited), refuses a verified one in Japanese, and is throttled', async () => {
    const email = 'resend-me@example.jp';
    const id = await newMember(email, false);
    await smtp.waitFor(smtp.to(email));

    const res = await admin.post(`/api/users/${id}/verification-mail`);
    expect(res.status).toBe(200);
    expect((await res.json()).message).toBe(`${email} に確認メールを送信しました。届くまで数分かかることがあります。`);
    await eventually(async () => smtp.messages.filter(smtp.to(email)).length === 2, 15_000, 'the resent mail');
    const audit = await em().execute(
      "select actor_id, actor_email from audit_logs where action = 'user.resend_verification' and target_id = ?",
      [id],
    );
    expect(audit).toEqual([{ actor_id: adminId, actor_email: 'boss@example.jp' }]);
    // The newest link works (the older one no longer does).
    const link = /http:\/\/localhost:3000(\/api\/users\/registration\/verify\/[\w-]+)/.exec(
      smtp.messages.filter(smtp.to(email)).at(-1)?.text ?? '',
    )?.[1];
    expect((await t.app.request(link as string)).headers.get('location')).toBe('/users/registration/email-verified');

    // Verified now: 409 in Japanese, and nothing recorded.
    const events = async () =>
      (
        await em().execute(
          "select count(*)::int as n from outbox_events where name = 'VerificationEmailRequested' and payload->>'userId' = ?",
          [id],
        )
      )[0]?.n;
    const before = await events();
    const verified = await admin.post(`/api/users/${id}/verification-mail`);
    expect(verified.status).toBe(409);
    expect((await verified.json()).message).toBe(
      'このユーザーのメールアドレスは確認済みです。確認メールを再送する必要はありません。',
    );
    expect(await events()).toBe(before);

    // Members cannot; nobody is 404.
    const member = new TestClient(t.app, '10.52.0.6');
    await member.login(email, 'member-pass-123');
    expect((await member.post(`/api/users/${id}/verification-mail`)).status).toBe(403);
    expect((await admin.post('/api/users/00000000-0000-4000-8000-000000000000/verification-mail')).status).toBe(404);
  });

  it('counts toward the limit of mail to one mailbox, whoever asks', async () => {
    const email = 'resend-many@example.jp';
    const id = await newMember(email, false); // the registration mail itself is not a request through the API
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await admin.post(`/api/users/${id}/verification-mail`)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const audits = await em().execute(
      "select count(*)::int as n from audit_logs where action = 'user.resend_verification' and target_id = ?",
      [id],
    );
    expect(audits[0]?.n).toBe(5);
  });
});
