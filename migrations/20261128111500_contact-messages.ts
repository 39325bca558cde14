import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261128111500_contact_messages extends OnlineMigration {

  override name = 'Migration20261128111500_contact_messages';

  override up(): void | Promise<void> {
    // お問い合わせ (issue 35 item 3): a new table; the mail job reads the message by id.
    this.addSql(`create table "contact_messages" ("id" uuid not null, "user_id" varchar(255) null, "name" varchar(100) not null, "email" varchar(254) not null, "category" varchar(40) not null, "order_number" varchar(40) null, "message" text not null, "own_address" boolean not null default false, "created_at" timestamptz not null default now(), primary key ("id"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "contact_messages" cascade;`);
  }

}
