import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../../db/columns.ts';

/** Who did what to which record, and when: written in the transaction of every administrator change. */
const AuditLogSchema = defineEntity({
  name: 'AuditLog',
  tableName: 'audit_logs',
  // Read newest first: whole, per action, per record (the user page) or per actor; the distinct actions,
  // record types and actors are read from the same indexes (src/modules/audit/service.ts).
  indexes: [
    {
      name: 'audit_logs_created_at_index',
      expression: 'create index "audit_logs_created_at_index" on "audit_logs" ("created_at" desc, "id" desc)',
    },
    {
      name: 'audit_logs_action_created_at_index',
      expression: 'create index "audit_logs_action_created_at_index" on "audit_logs" ("action", "created_at" desc, "id" desc)',
    },
    {
      name: 'audit_logs_target_created_at_index',
      expression:
        'create index "audit_logs_target_created_at_index" on "audit_logs" ("target_type", "target_id", "created_at" desc, "id" desc)',
    },
    {
      name: 'audit_logs_actor_email_created_at_index',
      expression:
        'create index "audit_logs_actor_email_created_at_index" on "audit_logs" ("actor_email", "created_at" desc, "id" desc)',
    },
    // Entries that moved a given sale (`after -> 'sale_ids' @> '[16]'`): the order detail's history.
    {
      name: 'audit_logs_sale_ids_index',
      expression: 'create index "audit_logs_sale_ids_index" on "audit_logs" using gin (("after" -> \'sale_ids\') jsonb_path_ops)',
    },
  ],
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
