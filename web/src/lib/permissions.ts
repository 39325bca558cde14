import { type CurrentUser, useAuth } from './auth-store';

/** What a back-office role may do, as the server sends it with the signed-in user (http/access.ts). */
export type Permission = CurrentUser['permissions'][number];
export type Role = CurrentUser['role'];

export const ROLE_LABELS: Record<Role, string> = {
  admin: '管理者',
  operator: '運用担当',
  viewer: '閲覧のみ',
  user: '一般会員',
};

export const isStaff = (user: Pick<CurrentUser, 'role'>) => user.role !== 'user';

export const userMay = (user: CurrentUser | undefined, permission: Permission) =>
  Boolean(user?.permissions?.includes(permission));

/** Hides what the signed-in role cannot do; the server refuses it anyway (403 forbidden_for_role). */
export function useCan(): (permission: Permission) => boolean {
  const { users } = useAuth();
  return (permission) => userMay(users[0], permission);
}
