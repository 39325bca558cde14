import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261121054442_member_accounts extends OnlineMigration {

  override name = 'Migration20261121054442_member_accounts';

  override up(): void | Promise<void> {
    this.addSql(`create table "account_tokens" ("id" uuid not null, "user_id" varchar(255) not null, "purpose" varchar(20) not null, "token_hash" varchar(64) not null, "new_email" varchar(254) null, "expires_at" timestamptz not null, "used_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "account_tokens_user_id_index" on "account_tokens" ("user_id");`);
    this.addSql(`alter table "account_tokens" add constraint "account_tokens_token_hash_unique" unique ("token_hash");`);

    this.addSql(`alter table "users" add "affiliation" smallint null, add "affiliation_name" varchar(100) not null default '', add "affiliation_other" varchar(100) null, add "distribution" boolean not null default true;`);

    this.addSql(`alter table "account_tokens" add constraint "account_tokens_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "account_tokens" cascade;`);

    this.addSql(`alter table "users" drop column "affiliation", drop column "affiliation_name", drop column "affiliation_other", drop column "distribution";`);
  }

}
