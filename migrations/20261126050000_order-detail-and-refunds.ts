import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261126050000_order_detail_and_refunds extends OnlineMigration {

  override name = 'Migration20261126050000_order_detail_and_refunds';

  override up(): void | Promise<void> {
    // Refunds asked for from the back office (issue 24): nullable, no default, so adding them to a
    // million sales rewrites nothing (a catalogue change under a short lock).
    this.addSql(`alter table "sales" add column "refund_requested_at" timestamptz null, add column "refund_requested_by" varchar(254) null, add column "refund_reason" varchar(200) null;`);
    // What a mail is about (`sale:16`, `checkout:<uuid>`), for the order detail's mail list.
    this.addSql(`alter table "mail_deliveries" add column "about" varchar(100) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "mail_deliveries" drop column if exists "about";`);
    this.addSql(`alter table "sales" drop column if exists "refund_requested_at", drop column if exists "refund_requested_by", drop column if exists "refund_reason";`);
  }

}
