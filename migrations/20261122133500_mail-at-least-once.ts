import { OnlineMigration } from '../src/db/online-migration.ts';

export class Migration20261122133500_mail_at_least_once extends OnlineMigration {

  override name = 'Migration20261122133500_mail_at_least_once';

  override up(): void | Promise<void> {
    // At-least-once mail (docs/decisions/0007-exactly-once-mail.md): a claim is a short transaction
    // (`claimed_at`), a refusal for good is `permanent`, and the event that asked for the e-mail is kept
    // so an operator's resend can run its job again.
    this.addSql(`alter table "mail_deliveries" add column "claimed_at" timestamptz null, add column "permanent" boolean not null default false, add column "event" jsonb null;`);
    // Failed (or unsent) mails, newest first: the administrators' failed-mail view.
    this.addSql(`create index "mail_deliveries_unsent_index" on "mail_deliveries" ("created_at" desc, "id" desc) where status <> 'sent';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "mail_deliveries_unsent_index";`);
    this.addSql(`alter table "mail_deliveries" drop column "event", drop column "permanent", drop column "claimed_at";`);
  }

}
