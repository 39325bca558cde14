import type { AuditLabels } from '../audit/index.ts';
import { announcementNames } from './audit-names.ts';

const STATE: Record<string, string> = { queued: '送信待ち', sending: '送信中', done: '送信完了', cancelled: '中止' };

/** How the audit log names what administrators do to announcements. */
export const announcementAuditLabels = {
  actions: {
    'announcement.create': 'お知らせの配信',
    'announcement.legal_notice': '規約改定のお知らせの送信',
    'announcement.cancel': 'お知らせ配信の中止',
  },
  targets: { announcement: 'お知らせ' },
  fieldsByTarget: {
    announcement: {
      subject: '件名',
      license_id: 'ご案内するライセンス',
      body_length: '本文の文字数',
      state: '配信状態',
      revision: '改定',
      resend: '再送信',
    },
  },
  valuesByTarget: { announcement: { state: STATE } },
  names: { announcement: announcementNames },
} satisfies AuditLabels;
