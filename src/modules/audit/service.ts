import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.ts';
import { AuditLog } from './entities/audit-log.entity.ts';

export interface Actor {
  id: string;
  email: string;
}

/** Records an administrator's change; call it inside the transaction that makes the change. */
export function recordAudit(
  tx: Em,
  actor: Actor,
  entry: { action: string; targetType: string; targetId: string | number; before?: unknown; after?: unknown },
): void {
  tx.create(AuditLog, {
    id: randomUUID(),
    actorId: actor.id,
    actorEmail: actor.email,
    action: entry.action,
    targetType: entry.targetType,
    targetId: String(entry.targetId),
    before: (entry.before ?? null) as Record<string, unknown> | null,
    after: (entry.after ?? null) as Record<string, unknown> | null,
    createdAt: new Date(),
  });
}
