import { type AnnouncementDraft, composeAnnouncement } from './compose.ts';
import type { AnnouncementKind } from './entities/announcement.entity.ts';
import { composeLegalNotice } from './legal-notice-mail.ts';

/** The announcement's mail for one reader, by kind: the kind picks the footer and the headers (decision 0049). */
export function composeOfKind(
  kind: AnnouncementKind,
  draft: AnnouncementDraft,
  reader: { lastName: string; firstName: string; token: string | null },
  options: { appUrl: string; mailFrom: string },
) {
  if (kind === 'legal_notice') return composeLegalNotice(draft, reader);
  if (!reader.token) throw new Error('An announcement needs its reader’s unsubscribe token.');
  return composeAnnouncement(draft, { ...reader, token: reader.token }, options);
}
