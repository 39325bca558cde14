import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261121055810_licenses extends OnlineMigration {

  override name = 'Migration20261121055810_licenses';

  override up(): void | Promise<void> {
    this.addSql(`create table "audit_logs" ("id" uuid not null, "actor_id" varchar(255) null, "actor_email" varchar(254) null, "action" varchar(64) not null, "target_type" varchar(32) not null, "target_id" varchar(64) not null, "before" jsonb null, "after" jsonb null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "audit_logs_target_index" on "audit_logs" ("target_type", "target_id");`);

    this.addSql(`create table "licenses" ("id" serial primary key, "name" varchar(100) not null, "description" text not null default '', "price" int not null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);

    this.addSql(`create table "license_pictures" ("id" uuid not null, "license_id" int not null, "position" smallint not null, "file_name" varchar(64) not null, "thumbnail_name" varchar(64) not null, "content_type" varchar(32) not null, "width" int not null, "height" int not null, "byte_size" int not null, "original_name" varchar(255) null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "license_pictures_license_id_index" on "license_pictures" ("license_id");`);
    this.addSql(`alter table "license_pictures" add constraint "license_pictures_file_name_unique" unique ("file_name");`);

    this.addSql(`alter table "license_pictures" add constraint "license_pictures_license_id_foreign" foreign key ("license_id") references "licenses" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "license_pictures" drop constraint "license_pictures_license_id_foreign";`);

    this.addSql(`drop table if exists "audit_logs" cascade;`);
    this.addSql(`drop table if exists "licenses" cascade;`);
    this.addSql(`drop table if exists "license_pictures" cascade;`);
  }

}
