import { Hono } from 'hono';
import type { AppEnv } from '../../http/context.ts';
import { AppError } from '../../http/errors.ts';
import { permit, signedInUser } from '../../http/guards.ts';
import { jsonInput, queryInput } from '../../http/validate.ts';
import { legalNoticeStatus, requestLegalNoticeTest, sendLegalNotice } from './legal-notice.ts';
import { announcementDocs } from './responses.ts';
import { AnnouncementInput, AnnouncementsQuery, LegalNoticeInput } from './schemas.ts';
import {
  ANNOUNCEMENT_NOT_FOUND,
  announcementProgress,
  cancelAnnouncement,
  createAnnouncement,
  listAnnouncements,
  previewAnnouncement,
  requestTestSend,
} from './service.ts';

const ID = ':id{[0-9a-f-]+}';
const announcementId = (raw: string) => {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(raw)) {
    throw new AppError('not_found', ANNOUNCEMENT_NOT_FOUND);
  }
  return raw;
};
const actorOf = (c: Parameters<typeof signedInUser>[0]) => {
  const user = signedInUser(c);
  return { id: user.id, email: user.email };
};

/** お知らせ配信 (administrators): compose, preview, test to oneself, send to every member who asked, watch, cancel; and 第7条's notice of a terms revision. */
export const announcementRoutes = new Hono<AppEnv>()
  .get('/announcements', announcementDocs.list, permit('members:read'), async (c) =>
    c.json(await listAnnouncements(c.var.deps.orm, queryInput(c, AnnouncementsQuery))),
  )
  .post('/announcements', announcementDocs.create, permit('members:update'), async (c) => {
    const input = await jsonInput(c, AnnouncementInput);
    return c.json({ id: await createAnnouncement(c.var.deps.orm, actorOf(c), input) }, 202);
  })
  .post('/announcements/preview', announcementDocs.preview, permit('members:update'), async (c) => {
    const input = await jsonInput(c, AnnouncementInput);
    const { appUrl, mailFrom } = c.var.deps.env;
    return c.json(await previewAnnouncement(c.var.deps.orm, input, { appUrl, mailFrom }));
  })
  .post('/announcements/test', announcementDocs.test, permit('members:update'), async (c) => {
    const input = await jsonInput(c, AnnouncementInput);
    const actor = actorOf(c);
    await requestTestSend(c.var.deps.orm, actor, input);
    return c.json({ message: `${actor.email} 宛てにテスト送信します。まもなく届きます。` }, 202);
  })
  .get('/announcements/legal-notice', announcementDocs.legalNotice, permit('members:read'), async (c) =>
    c.json(await legalNoticeStatus(c.var.deps.orm, c.var.deps.env.appUrl)),
  )
  .post('/announcements/legal-notice', announcementDocs.sendLegalNotice, permit('members:update'), async (c) => {
    const input = await jsonInput(c, LegalNoticeInput);
    return c.json({ id: await sendLegalNotice(c.var.deps.orm, actorOf(c), input, c.var.deps.env.appUrl) }, 202);
  })
  .post('/announcements/legal-notice/test', announcementDocs.testLegalNotice, permit('members:update'), async (c) => {
    const actor = actorOf(c);
    await requestLegalNoticeTest(c.var.deps.orm, actor, c.var.deps.env.appUrl);
    return c.json({ message: `${actor.email} 宛てにテスト送信します。まもなく届きます。` }, 202);
  })
  .get(`/announcements/${ID}`, announcementDocs.show, permit('members:read'), async (c) =>
    c.json(await announcementProgress(c.var.deps.orm, announcementId(c.req.param('id')))),
  )
  .post(`/announcements/${ID}/cancel`, announcementDocs.cancel, permit('members:update'), async (c) =>
    c.json(await cancelAnnouncement(c.var.deps.orm, actorOf(c), announcementId(c.req.param('id')))),
  );
