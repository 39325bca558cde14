import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261122160000_change_notices extends OnlineMigration {

  override name = 'Migration20261122160000_change_notices';

  override up(): void | Promise<void> {
    // Change notices for the web processes' in-process caches (src/db/changes.ts,
    // docs/decisions/0021-change-notices.md): sent when the transaction commits, identical ones once.
    // Sessions and users name the member (row triggers, the member's id column as argument); sales and licences name only the table
    // (statement triggers: a move of 600,000 sales is one notice).
    this.addSql(`create or replace function shop_notify_change() returns trigger language plpgsql as $$
      begin
        if tg_level = 'ROW' then
          perform pg_notify('shop_changes', tg_table_name || ':' ||
            coalesce(to_jsonb(new) ->> tg_argv[0], to_jsonb(old) ->> tg_argv[0], ''));
        else
          perform pg_notify('shop_changes', tg_table_name);
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger users_change_notice after insert or update or delete on "users" for each row execute function shop_notify_change('id');`);
    this.addSql(`create trigger sessions_change_notice after insert or update or delete on "sessions" for each row execute function shop_notify_change('user_id');`);
    this.addSql(`create trigger sales_change_notice after insert or update or delete or truncate on "sales" for each statement execute function shop_notify_change();`);
    this.addSql(`create trigger licenses_change_notice after insert or update or delete or truncate on "licenses" for each statement execute function shop_notify_change();`);
    this.addSql(`create trigger license_pictures_change_notice after insert or update or delete or truncate on "license_pictures" for each statement execute function shop_notify_change();`);
  }

  override down(): void | Promise<void> {
    for (const table of ['license_pictures', 'licenses', 'sales', 'sessions', 'users']) {
      this.addSql(`drop trigger if exists "${table}_change_notice" on "${table}";`);
    }
    this.addSql('drop function if exists shop_notify_change();');
  }

}
