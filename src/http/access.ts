import { createAccessControl } from 'better-auth/plugins/access';
import { adminAc, defaultStatements, userAc } from 'better-auth/plugins/admin/access';

/**
 * Who may do what (docs/decisions/0045-staff-roles-and-admin-networks.md): the one permission table.
 * better-auth's admin plugin is given the same roles, so its own endpoints agree with ours.
 */
const statement = {
  ...defaultStatements,
  members: ['read', 'update', 'mail', 'export', 'set-password', 'delete', 'set-role'],
  licenses: ['read', 'update'],
  sales: ['read', 'update', 'refund'],
  exports: ['read', 'run', 'download'],
  payments: ['read', 'update'],
  mails: ['read', 'resend'],
  audit: ['read', 'export'],
  operations: ['read'],
} as const;

export const ac = createAccessControl(statement);

type Statement = typeof statement;
type Resource = Exclude<keyof Statement, keyof typeof defaultStatements>;
export type Permission = { [R in Resource]: `${R}:${Statement[R][number]}` }[Resource];

const readAll = {
  members: ['read'],
  licenses: ['read'],
  sales: ['read'],
  exports: ['read'],
  payments: ['read'],
  mails: ['read'],
  audit: ['read'],
  operations: ['read'],
} as const;

export const roles = {
  admin: ac.newRole({
    ...adminAc.statements,
    members: [...statement.members],
    licenses: [...statement.licenses],
    sales: [...statement.sales],
    exports: [...statement.exports],
    payments: [...statement.payments],
    mails: [...statement.mails],
    audit: [...statement.audit],
    operations: [...statement.operations],
  }),
  operator: ac.newRole({
    ...readAll,
    members: ['read', 'mail'],
    sales: [...statement.sales],
    exports: [...statement.exports],
    payments: [...statement.payments],
    mails: [...statement.mails],
  }),
  viewer: ac.newRole(readAll),
  user: ac.newRole(userAc.statements),
};

export type Role = keyof typeof roles;
export const ROLES = Object.keys(roles) as Role[];
/** The roles that sign in to the back office: two-factor, shorter sessions, the network allow-list. */
const STAFF_ROLES: readonly Role[] = ['admin', 'operator', 'viewer'];

export const ROLE_LABELS: Record<Role, string> = {
  admin: '管理者',
  operator: '運用担当',
  viewer: '閲覧のみ',
  user: '一般会員',
};

export const isRole = (role: string): role is Role => Object.hasOwn(roles, role);
export const isStaffRole = (role: string) => (STAFF_ROLES as readonly string[]).includes(role);

export const PERMISSIONS = Object.entries(statement)
  .filter(([resource]) => !(resource in defaultStatements))
  .flatMap(([resource, actions]) => actions.map((action) => `${resource}:${action}`)) as Permission[];

export function can(role: string, permission: Permission): boolean {
  if (!isRole(role)) return false;
  const [resource, action] = permission.split(':') as [Resource, string];
  return roles[role].authorize({ [resource]: [action] }).success;
}

/** A role's permissions never change while the process runs: each list is worked out once. */
const permissionLists = new Map(ROLES.map((role) => [role, PERMISSIONS.filter((p) => can(role, p))]));
export const permissionsOf = (role: string): Permission[] => [...(permissionLists.get(role as Role) ?? [])];
