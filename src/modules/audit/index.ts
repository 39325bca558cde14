// The audit module's public surface: every administrator change is recorded through it.
import { AuditLog } from './entities/audit-log.entity.ts';

export { type Actor, recordAudit } from './service.ts';

export const audit = { name: 'audit', entities: [AuditLog] };
