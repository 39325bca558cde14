import { OnlineMigration } from '../src/db/online-migration.ts';

/** Deliveries given their `about` per statement: short row locks on a table every mail writes to. */
const BATCH = 5_000;

/**
 * What an existing delivery is about, from what it recorded: a sale's receipt mail carries the SalePaid
 * event (`payload.saleId`), a registration mail its key (`…:registered:<sale id>`), the konbini mails
 * their checkout's event (`payload.checkoutId`). New deliveries are given it by their sender.
 */
const ABOUT = `case
    when d.event -> 'payload' ->> 'saleId' ~ '^[0-9]{1,9}$' then 'sale:' || (d.event -> 'payload' ->> 'saleId')
    when d.key ~ ':registered:[0-9]{1,9}$' then 'sale:' || substring(d.key from ':registered:([0-9]{1,9})$')
    when d.event -> 'payload' ->> 'checkoutId' ~ '^[0-9a-f-]{36}$' then 'checkout:' || (d.event -> 'payload' ->> 'checkoutId')
  end`;

export class Migration20261126050100_order_detail_indexes extends OnlineMigration {

  override name = 'Migration20261126050100_order_detail_indexes';

  // Each batch commits on its own and every index is built CONCURRENTLY: mail, moves and the audit log
  // keep being written while this runs.
  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const rows = (await this.execute(
        `with batch as (
           select id from mail_deliveries
            where id > ? and template in ('receipt', 'license-registered', 'konbini-voucher', 'konbini-reminder', 'konbini-lapsed')
            order by id limit ${BATCH})
         , updated as (
           update mail_deliveries d set about = ${ABOUT} from batch where d.id = batch.id and d.about is null returning d.id)
         select max(id::text) as last from batch`,
        [after],
      )) as { last: string | null }[];
      const last = rows[0]?.last;
      if (!last) break;
      after = last;
    }
    // The order detail's mails of a sale and of its checkout.
    await this.addIndexConcurrently('mail_deliveries_about_index', 'on "mail_deliveries" ("about", "created_at") where "about" is not null');
    // The moves of one sale (the primary key leads with the move).
    await this.addIndexConcurrently('sale_status_move_sales_sale_id_index', 'on "sale_status_move_sales" ("sale_id")');
    // Audit entries whose `sale_ids` hold a sale (jsonb containment: `after -> 'sale_ids' @> '[16]'`).
    await this.addIndexConcurrently('audit_logs_sale_ids_index', `on "audit_logs" using gin (("after" -> 'sale_ids') jsonb_path_ops)`);
    // お支払い待ち: konbini checkouts by state and deadline.
    await this.addIndexConcurrently(
      'checkout_sessions_konbini_index',
      'on "checkout_sessions" ("state", "konbini_expires_at") where "konbini_expires_at" is not null',
    );
  }

  override down(): void | Promise<void> {
    this.addSql('drop index concurrently if exists "checkout_sessions_konbini_index";');
    this.addSql('drop index concurrently if exists "audit_logs_sale_ids_index";');
    this.addSql('drop index concurrently if exists "sale_status_move_sales_sale_id_index";');
    this.addSql('drop index concurrently if exists "mail_deliveries_about_index";');
  }

}
