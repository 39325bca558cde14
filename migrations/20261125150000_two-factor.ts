import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261125150000_two_factor extends OnlineMigration {

  override name = 'Migration20261125150000_two_factor';

  override up(): void | Promise<void> {
    // better-auth's twoFactor and passkey plugins (docs/decisions/0027-two-factor-and-passkeys.md).
    // A constant default adds the column without rewriting `users`.
    this.addSql(`alter table "users" add column "two_factor_enabled" boolean not null default false;`);
    this.addSql(`create table "two_factors" ("id" varchar(255) not null, "user_id" varchar(255) not null, "secret" text not null, "backup_codes" text not null, "verified" boolean not null default true, "failed_verification_count" int not null default 0, "locked_until" timestamptz null, primary key ("id"));`);
    this.addSql(`alter table "two_factors" add constraint "two_factors_user_id_unique" unique ("user_id");`);
    this.addSql(`alter table "two_factors" add constraint "two_factors_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
    this.addSql(`create table "passkeys" ("id" varchar(255) not null, "name" text null, "public_key" text not null, "user_id" varchar(255) not null, "credential_id" text not null, "counter" int not null, "device_type" text not null, "backed_up" boolean not null, "transports" text null, "aaguid" text null, "created_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "passkeys_user_id_index" on "passkeys" ("user_id");`);
    this.addSql(`alter table "passkeys" add constraint "passkeys_credential_id_unique" unique ("credential_id");`);
    this.addSql(`alter table "passkeys" add constraint "passkeys_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "passkeys" cascade;`);
    this.addSql(`drop table if exists "two_factors" cascade;`);
    this.addSql(`alter table "users" drop column "two_factor_enabled";`);
  }

}
