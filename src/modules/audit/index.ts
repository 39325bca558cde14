// The audit module's public surface: every administrator change is recorded through it and read back
// by administrators at GET /api/audit-logs. It knows no other module: each module publishes the words
// for its entries (AuditLabels, from its own index.ts) and the host hands them all to auditModule().
import type { AppModule } from '../../http/context.ts';
import { ownAuditLabels } from './audit-labels.ts';
import { AuditLog } from './entities/audit-log.entity.ts';
import { type AuditLabels, auditVocabulary } from './labels.ts';
import { auditRoutes } from './routes.ts';

export type { AuditLabels } from './labels.ts';
export { auditEntriesOfSale, type SaleAuditEntry } from './sale-entries.ts';
export { type Actor, auditedSaleIds, recordAudit } from './service.ts';

/** The audit module, reading entries with the modules' words (in the order its filters list them). */
export const auditModule = (labels: readonly AuditLabels[]) =>
  ({ name: 'audit', api: auditRoutes(auditVocabulary([...labels, ownAuditLabels])), entities: [AuditLog] }) satisfies AppModule;
