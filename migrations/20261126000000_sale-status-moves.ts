import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261126000000_sale_status_moves extends OnlineMigration {

  override name = 'Migration20261126000000_sale_status_moves';

  override up(): void | Promise<void> {
    // A status move, and its sales: SaleStatusChanged names the move and its count instead of every
    // sale id (issue 22: one move of 20,000 sales wrote a 126 KiB event). New and empty tables.
    this.addSql(`create table "sale_status_moves" ("id" uuid not null, "from_status" smallint not null, "to_status" smallint not null, "actor_id" varchar(255) not null, "sale_count" int not null, "mails_planned_at" timestamptz null, "created_at" timestamptz not null, constraint "sale_status_moves_pkey" primary key ("id"));`);
    this.addSql(`create table "sale_status_move_sales" ("move_id" uuid not null, "sale_id" int not null, constraint "sale_status_move_sales_pkey" primary key ("move_id", "sale_id"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "sale_status_move_sales" cascade;`);
    this.addSql(`drop table if exists "sale_status_moves" cascade;`);
  }

}
