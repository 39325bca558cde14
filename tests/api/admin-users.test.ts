import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Em } from '../../src/db/orm.ts';
import { transact } from '../../src/events/outbox.ts';
import { createOrPromoteAdmin, createUser } from '../../src/modules/accounts/index.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';
import { eventually } from '../support/wait.ts';

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
  // Workers run: a deleted user's sales lose their account link through UserDeleted.
  t = await startTestRuntime({ mode: 'all' });
  adminId = (await createOrPromoteAdmin(t.runtime.deps.orm, { email: 'boss@example.jp', password: 'boss-pass-123' })).user.id;
  for (const p of people) {
    const user = await transact(t.runtime.deps.orm.em as Em, (tx) =>
      createUser(tx, {
        email: p.email,
        password: 'member-pass-123',
        lastName: p.lastName,
        firstName: p.firstName,
        emailVerified: true,
        affiliation: p.affiliation,
        affiliationName: '所属',
      }),
    );
    ids[p.key] = user.id;
  }
  admin = new TestClient(t.app, '10.50.0.1');
  await admin.login('boss@example.jp', 'boss-pass-123');
});
afterAll(async () => t?.stop());

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
    await em.execute(
      "insert into licenses (name, description, price, created_at, updated_at) values ('L', '', 1000, now(), now())",
    );
    await em.execute(
      `insert into sales (user_id, buyer_last_name, buyer_first_name, buyer_email, buyer_affiliation_name, license_id, license_name, amount, currency,
        checkout_session_id, stripe_session_id, paid_at, status, created_at, updated_at)
       values (?, '山田', '太郎', ?, '所属', (select max(id) from licenses), 'L', 1000, 'jpy', gen_random_uuid(), 'cs_test_keep', now(), 0, now(), now())`,
      [ids.yamada, people[0]?.email],
    );
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
    const member = await transact(t.runtime.deps.orm.em as Em, (tx) =>
      createUser(tx, {
        email: 'promote-me@example.jp',
        password: 'promote-pass-1',
        lastName: '昇格',
        firstName: '候補',
        emailVerified: true,
      }),
    );
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
      transact(t.runtime.deps.orm.em as Em, (tx) =>
        createUser(tx, {
          email,
          password: 'mutual-pass-1',
          lastName: '相互',
          firstName: '管理',
          emailVerified: true,
          role: 'admin',
        }),
      );
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
    expect((await survivor.request('DELETE', `/api/users/${survivorId}/force`)).status).toBe(403);
    expect((await survivor.put(`/api/users/${survivorId}/role`, { role: 'user' })).status).toBe(403);
    await em.execute("update users set role = 'admin' where id = ?", [adminId]);
  });
});
