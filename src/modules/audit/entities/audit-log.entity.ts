import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../../db/columns.ts';

/** Who did what to which record, and when: written in the transaction of every administrator change. */
export const AuditLogSchema = defineEntity({
  name: 'AuditLog',
  tableName: 'audit_logs',
  indexes: [{ name: 'audit_logs_target_index', properties: ['targetType', 'targetId'] }],
  properties: {
    id: p.uuid().primary(),
    actorId: p.string().fieldName('actor_id').nullable(),
    actorEmail: p.string().length(254).fieldName('actor_email').nullable(),
    action: p.string().length(64),
    targetType: p.string().length(32).fieldName('target_type'),
    targetId: p.string().length(64).fieldName('target_id'),
    before: p.json<Record<string, unknown>>().nullable(),
    after: p.json<Record<string, unknown>>().nullable(),
    createdAt: createdAt(),
  },
});
export class AuditLog extends AuditLogSchema.class {}
AuditLogSchema.setClass(AuditLog);
