// The announcements module's public surface: お知らせ配信 to the members who asked for it.
import type { AppModule } from '../../http/context.ts';
import { Announcement, AnnouncementRecipient } from './entities/announcement.entity.ts';
import { announcementRoutes } from './routes.ts';
import { onAnnouncementDue } from './send.ts';
import { onAnnouncementTestRequested } from './test-send.ts';

export { announcementAuditLabels } from './audit-labels.ts';
export { composeLegalNotice, LEGAL_NOTICE_SUBJECT, legalNoticeBody } from './legal-notice-mail.ts';

export const announcements = {
  name: 'announcements',
  api: announcementRoutes,
  entities: [Announcement, AnnouncementRecipient],
  handlers: {
    AnnouncementRequested: onAnnouncementDue,
    AnnouncementBatchDue: onAnnouncementDue,
    AnnouncementTestRequested: onAnnouncementTestRequested,
  },
} satisfies AppModule;
