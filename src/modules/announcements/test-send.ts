import type { EventHandler } from '../../jobs/context.ts';
import { testRecipient } from '../accounts/index.ts';
import { licenseNames } from '../licenses/index.ts';
import { sendOnce } from '../mail/index.ts';
import { composeOfKind } from './mail-of-kind.ts';

/** AnnouncementTestRequested → the draft (either kind), exactly as members will get it, to the administrator who asked. */
export const onAnnouncementTestRequested: EventHandler<'AnnouncementTestRequested'> = async (ctx, event) => {
  const { userId, subject, body, licenseId, kind } = event.payload;
  const me = await testRecipient(ctx.em, userId);
  if (!me) return 'skipped';
  const name = licenseId ? (await licenseNames(ctx.em, [licenseId])).get(licenseId) : undefined;
  const mail = composeOfKind(
    kind,
    { subject: `［テスト送信］${subject}`, body, license: licenseId && name ? { id: licenseId, name } : null },
    { lastName: me.last_name, firstName: me.first_name, token: me.token },
    { appUrl: ctx.env.appUrl, mailFrom: ctx.env.mailFrom },
  );
  const template = kind === 'legal_notice' ? 'legal-notice-test' : 'announcement-test';
  const result = await sendOnce(ctx, `${event.id}:${template}`, template, userId, { to: me.email, ...mail });
  return result === 'sent' ? 'done' : 'skipped';
};
