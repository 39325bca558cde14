import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { can, PERMISSIONS, type Permission } from '../../src/http/access.ts';
import { aMember, anAdmin } from '../support/factories.ts';
import { TestClient } from '../support/http-client.ts';
import { startTestRuntime, type TestRuntime } from '../support/runtime.ts';

/**
 * Every staff call of the OpenAPI document, tried as admin, operator, viewer and member: a route added
 * later is in this table without a test being written for it (docs/decisions/0045).
 */
let t: TestRuntime;
const clients: Record<'admin' | 'operator' | 'viewer' | 'user', TestClient> = {} as never;
const ids: Record<string, string> = {};

interface StaffOperation {
  method: string;
  path: string;
  access: string;
  permission: Permission;
}

async function staffOperations(): Promise<StaffOperation[]> {
  const doc = (await (await t.app.request('/api/openapi.json')).json()) as {
    paths: Record<string, Record<string, { 'x-access': string; 'x-permission'?: Permission }>>;
  };
  const ops: StaffOperation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (op['x-access'] !== 'admin' && op['x-access'] !== 'self-or-admin') continue;
      expect(op['x-permission'], `${method} ${path} names no permission`).toBeDefined();
      ops.push({ method: method.toUpperCase(), path, access: op['x-access'], permission: op['x-permission'] as Permission });
    }
  }
  return ops;
}

/** Ids that find nothing: an allowed call answers 404 or 422 and changes nothing. */
const urlOf = (path: string) =>
  path
    .replace(/\{id\}/g, (_, offset: number) =>
      /\/(sales|licenses)\/$/.test(path.slice(0, offset)) ? '999999' : '00000000-0000-4000-8000-000000000000',
    )
    .replace(/\{[a-z_]+\}/g, 'nothing');

const call = (role: keyof typeof clients, op: StaffOperation) =>
  clients[role].request(op.method, urlOf(op.path), op.method === 'GET' ? {} : { json: {} });

beforeAll(async () => {
  t = await startTestRuntime();
  const admin = await anAdmin(t.runtime.deps.orm);
  clients.admin = new TestClient(t.app, '10.33.0.1');
  await clients.admin.login(admin.email, admin.password);
  for (const [i, role] of (['operator', 'viewer', 'user'] as const).entries()) {
    const member = await aMember(t.runtime.deps.orm);
    ids[role] = member.id;
    if (role !== 'user') expect((await clients.admin.put(`/api/users/${member.id}/role`, { role })).status).toBe(200);
    clients[role] = new TestClient(t.app, `10.33.0.${i + 2}`);
    await clients[role].login(member.email, member.password);
  }
});
afterAll(async () => t?.stop());

describe('every staff API, by role', () => {
  it('reads the staff calls from the OpenAPI document, each with a permission, the same as the guarded routes', async () => {
    const ops = await staffOperations();
    expect(ops.length).toBeGreaterThan(40);
    const guarded = new Set<string>();
    for (const r of t.app.routes) {
      if (!('permission' in r.handler)) continue;
      guarded.add(`${r.method} ${r.path.replace(/:(\w+)(\{[^/]*\})?/g, '{$1}')}`);
    }
    const documented = new Set(ops.filter((o) => o.access === 'admin').map((o) => `${o.method} ${o.path}`));
    expect([...guarded].sort()).toEqual([...documented].sort());
  });

  it('answers 403 forbidden_for_role where the role may not, and lets it through where it may', async () => {
    const failures: string[] = [];
    for (const op of await staffOperations()) {
      for (const role of ['admin', 'operator', 'viewer'] as const) {
        const res = await call(role, op);
        const body = (await res.json().catch(() => ({}))) as { code?: string; message?: string };
        const refused = res.status === 403 && body.code === 'forbidden_for_role';
        if (can(role, op.permission) === refused)
          failures.push(`${role} ${op.method} ${op.path} → ${res.status} ${body.code ?? ''}`);
        if (refused && !/権限/.test(body.message ?? '')) failures.push(`${role} ${op.method} ${op.path}: ${body.message}`);
      }
      const member = await call('user', op);
      if (member.status !== 403) failures.push(`user ${op.method} ${op.path} → ${member.status}`);
    }
    expect(failures).toEqual([]);
  });

  it('grants what the issue names: operator runs the shop, viewer only reads, personal-data exports are not for viewers', () => {
    for (const p of [
      'sales:update',
      'sales:refund',
      'exports:run',
      'exports:download',
      'payments:update',
      'mails:resend',
    ] as const) {
      expect(can('operator', p)).toBe(true);
    }
    for (const p of [
      'members:export',
      'members:set-password',
      'members:delete',
      'members:set-role',
      'licenses:update',
    ] as const) {
      expect(can('operator', p)).toBe(false);
    }
    expect(PERMISSIONS.filter((p) => can('viewer', p)).every((p) => p.endsWith(':read'))).toBe(true);
    expect(PERMISSIONS.every((p) => can('admin', p))).toBe(true);
    expect(PERMISSIONS.some((p) => can('user', p))).toBe(false);
  });
});

describe('PUT /api/users/{id}/role', () => {
  it('sends the role and its permissions with the signed-in user', async () => {
    const me = (await (await clients.operator.get('/api/login')).json()).users[0];
    expect(me.role).toBe('operator');
    expect(me.permissions).toContain('sales:refund');
    expect(me.permissions).not.toContain('members:export');
  });

  it('is audited, refuses an unknown role in Japanese, and keeps the last administrator', async () => {
    const bad = await clients.admin.put(`/api/users/${ids.user}/role`, { role: 'owner' });
    expect(bad.status).toBe(422);
    expect((await bad.json()).errors.role[0]).toMatch(/役割/);
    const res = await clients.admin.put(`/api/users/${ids.user}/role`, { role: 'viewer' });
    expect((await res.json()).user.role).toBe('viewer');
    const audit = await (await clients.admin.get(`/api/audit-logs?action=user.role&target_id=${ids.user}`)).json();
    expect(audit.audit_logs[0].changes[0]).toMatchObject({ before: '一般会員', after: '閲覧のみ' });
    await clients.admin.put(`/api/users/${ids.user}/role`, { role: 'user' });
    const me = (await (await clients.admin.get('/api/login')).json()).users[0];
    const last = await clients.admin.put(`/api/users/${me.id}/role`, { role: 'operator' });
    expect(last.status).toBe(409);
    expect((await last.json()).message).toMatch(/最後の管理者/);
    const gone = await clients.admin.request('DELETE', `/api/users/${me.id}/force`);
    expect(gone.status).toBe(409);
  });

  it('asks a new operator for two-factor before any staff call', async () => {
    const member = await aMember(t.runtime.deps.orm);
    await clients.admin.put(`/api/users/${member.id}/role`, { role: 'operator' });
    const fresh = new TestClient(t.app, '10.33.0.9');
    await fresh.login(member.email, member.password, { enrolAdmins: false });
    const res = await fresh.get('/api/sales');
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('two_factor_enrollment_required');
  });
});
