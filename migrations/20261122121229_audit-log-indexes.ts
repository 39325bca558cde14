import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261122121229_audit_log_indexes extends OnlineMigration {

  override name = 'Migration20261122121229_audit_log_indexes';

  override up(): void | Promise<void> {
    // The audit log viewer reads newest first: whole, per action, per record (the user page) or per
    // actor; its filter choices and the actor search read the distinct values off the same indexes.
    this.addSql(`drop index "audit_logs_target_index";`);
    this.addSql(`create index "audit_logs_created_at_index" on "audit_logs" ("created_at" desc, "id" desc);`);
    this.addSql(`create index "audit_logs_action_created_at_index" on "audit_logs" ("action", "created_at" desc, "id" desc);`);
    this.addSql(`create index "audit_logs_target_created_at_index" on "audit_logs" ("target_type", "target_id", "created_at" desc, "id" desc);`);
    this.addSql(`create index "audit_logs_actor_email_created_at_index" on "audit_logs" ("actor_email", "created_at" desc, "id" desc);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "audit_logs_created_at_index";`);
    this.addSql(`drop index "audit_logs_action_created_at_index";`);
    this.addSql(`drop index "audit_logs_target_created_at_index";`);
    this.addSql(`drop index "audit_logs_actor_email_created_at_index";`);
    this.addSql(`create index "audit_logs_target_index" on "audit_logs" ("target_type", "target_id");`);
  }

}
