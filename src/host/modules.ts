import type { Env } from '../config/env.ts';
import { type DbEnv, initOrm, type MigrateOptions, migrate, type Orm, withMigrationLock } from '../db/orm.ts';
import { OutboxEvent } from '../events/outbox-event.entity.ts';
import type { AppModule } from '../http/context.ts';
import { accountAuditLabels, accounts } from '../modules/accounts/index.ts';
import { announcementAuditLabels, announcements } from '../modules/announcements/index.ts';
import { auditModule } from '../modules/audit/index.ts';
import { checkout, checkoutAuditLabels } from '../modules/checkout/index.ts';
import { contact } from '../modules/contact/index.ts';
import { health } from '../modules/health/index.ts';
import { licenseAuditLabels, licenses } from '../modules/licenses/index.ts';
import { mail, mailAuditLabels } from '../modules/mail/index.ts';
import { saleAuditLabels, sales } from '../modules/sales/index.ts';
import { adminInvoices } from './admin-invoices.ts';
import { dashboard } from './dashboard.ts';
import { memberHistory } from './member-history.ts';
import { memberOrders } from './member-orders.ts';
import { orderDetail } from './order-detail.ts';

/**
 * What each module calls the entries it records in the audit log, handed to the audit module (which
 * knows no other module). This order is the order of the log's filters and of an entry's fields.
 */
const auditLabels = [
  accountAuditLabels,
  licenseAuditLabels,
  saleAuditLabels,
  checkoutAuditLabels,
  mailAuditLabels,
  announcementAuditLabels,
];

/** Every module of the shop, as the host mounts them. Their order carries no meaning (tests reverse it). */
export const appModules: readonly AppModule[] = [
  accounts,
  licenses,
  checkout,
  sales,
  mail,
  announcements,
  contact,
  auditModule(auditLabels),
  health,
  memberHistory,
  memberOrders,
  adminInvoices,
  dashboard,
  orderDetail,
];

/** The explicit entity list: every table MikroORM knows about and migrates, collected from the modules. */
export const entities = [...appModules.flatMap((m) => m.entities), OutboxEvent];

/** MikroORM with the shop's entities (CLI, boot and tests). */
export const openDatabase = (env: DbEnv) => initOrm(env, entities);

/**
 * Applies pending migrations under the migration lock, on DATABASE_DIRECT_URL when DATABASE_URL is a
 * pooler (a short-lived ORM of two connections), so several processes starting at once apply them once
 * (boot, `npm run db:migrate`, `npm run admin:create`).
 */
export async function migrateShop(
  env: DbEnv & Pick<Env, 'databaseDirectUrl'>,
  orm: Orm,
  options: MigrateOptions = {},
): Promise<string[]> {
  const direct = env.databaseDirectUrl;
  return withMigrationLock(orm, direct, async () => {
    if (!direct || direct === env.databaseUrl) return migrate(orm, options);
    const directOrm = await initOrm({ ...env, databaseUrl: direct }, entities, { pool: { min: 0, max: 2 } });
    try {
      return await migrate(directOrm, options);
    } finally {
      await directOrm.close(true);
    }
  });
}
