import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261122121500_mail_log extends OnlineMigration {

  override name = 'Migration20261122121500_mail_log';

  override up(): void | Promise<void> {
    // Until now a row meant "sent once" (a failed attempt rolled back and left nothing): existing rows
    // are sent, after one attempt, created when they were sent. New rows start as 'sending'.
    this.addSql(`alter table "mail_deliveries" add "user_id" varchar(255) null, add "status" varchar(16) not null default 'sent', add "attempts" int not null default 1, add "error" text null, add "failed_at" timestamptz null, add "created_at" timestamptz null;`);
    this.addSql(`alter table "mail_deliveries" alter column "status" set default 'sending', alter column "attempts" set default 0, alter column "sent_at" drop not null;`);
    this.addSql(`update "mail_deliveries" set "created_at" = "sent_at";`);
    this.addSql(`alter table "mail_deliveries" alter column "created_at" set not null;`);
    // Whom the mails so far were for: the account of the event that sent them (key = event id + kind),
    // the buyer of the sale a receipt or registration notice was about, else the account at that address.
    this.addSql(`update "mail_deliveries" d set "user_id" = o."payload"->>'userId' from "outbox_events" o where o."id"::text = split_part(d."key", ':', 1) and o."payload" ? 'userId';`);
    this.addSql(`update "mail_deliveries" d set "user_id" = s."user_id" from "outbox_events" o join "sales" s on s."id" = (o."payload"->>'saleId')::int where d."user_id" is null and o."name" = 'SalePaid' and o."id"::text = split_part(d."key", ':', 1);`);
    this.addSql(`update "mail_deliveries" d set "user_id" = s."user_id" from "sales" s where d."user_id" is null and d."template" = 'license-registered' and s."id" = case when split_part(d."key", ':', 3) ~ '^[0-9]{1,9}$' then split_part(d."key", ':', 3)::int end;`);
    this.addSql(`update "mail_deliveries" d set "user_id" = u."id" from "users" u where d."user_id" is null and u."email" = lower(d."recipient");`);
    this.addSql(`create index "mail_deliveries_user_id_index" on "mail_deliveries" ("user_id", "created_at" desc, "id" desc);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "mail_deliveries_user_id_index";`);
    // Failed and unfinished attempts were never kept before.
    this.addSql(`delete from "mail_deliveries" where "status" <> 'sent';`);
    this.addSql(`alter table "mail_deliveries" drop column "user_id", drop column "status", drop column "attempts", drop column "error", drop column "failed_at", drop column "created_at";`);
    this.addSql(`alter table "mail_deliveries" alter column "sent_at" set not null;`);
  }

}
