import * as v from 'valibot';
import { paging } from '../../http/validate.ts';

/** GET /api/mails */
export const MailsQuery = v.object({
  status: v.optional(v.picklist(['failed', 'sending', 'stuck'], '状態が正しくありません。'), 'failed'),
  ...paging,
});
