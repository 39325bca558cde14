import { describe, expect, it } from 'vitest';
import { ADMIN_NAV, currentAdminItem } from '../../web/src/app/admin-nav.ts';

describe('the admin side menu’s list', () => {
  it('holds each screen once, every one under /admin', () => {
    expect(new Set(ADMIN_NAV.map((item) => item.to)).size).toBe(ADMIN_NAV.length);
    for (const item of ADMIN_NAV) expect(item.to).toMatch(/^\/admin\//);
    expect(ADMIN_NAV.filter((item) => item.server).map((item) => item.to)).toEqual(['/admin/queues']);
  });

  it('marks the screen a page belongs to: its own (exact) or the longest item above it', () => {
    expect(currentAdminItem('/admin/users')).toMatchObject({ item: { label: 'ユーザー一覧' }, exact: true });
    expect(currentAdminItem('/admin/users/abc/edit')).toMatchObject({ item: { label: 'ユーザー一覧' }, exact: false });
    expect(currentAdminItem('/admin/licenses/issue')).toMatchObject({ item: { label: 'ライセンス発行' }, exact: true });
    expect(currentAdminItem('/admin/licenses/3/edit')).toMatchObject({ item: { label: 'ライセンス一覧' }, exact: false });
    expect(currentAdminItem('/admin/payments/')).toMatchObject({ item: { label: '決済の受信箱と照合' }, exact: true });
    expect(currentAdminItem('/admin')).toBeUndefined();
    expect(currentAdminItem('/admin/usersx')).toBeUndefined();
  });
});
