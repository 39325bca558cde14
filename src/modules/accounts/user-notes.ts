import { Hono } from 'hono';
import * as v from 'valibot';
import { db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { transact } from '../../events/outbox.ts';
import type { AppEnv } from '../../http/context.ts';
import { AppError } from '../../http/errors.ts';
import { permit, signedInUser } from '../../http/guards.ts';
import { NoteAnswer, NoteInput, noteDto } from '../../http/notes.ts';
import { operation, pathIds } from '../../http/openapi.ts';
import { jsonInput } from '../../http/validate.ts';
import { type Actor, recordAudit } from '../audit/index.ts';
import { UserNote } from './entities/user-note.entity.ts';
import { USER_NOT_FOUND } from './users.ts';

const USER = ':id{[0-9a-fA-F-]+}';

async function assertUser(em: Em, userId: string) {
  const user = /^[0-9a-f-]{36}$/i.test(userId)
    ? await kysely(em).selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst()
    : undefined;
  if (!user) throw new AppError('not_found', USER_NOT_FOUND);
}

async function userNotes(orm: Orm, userId: string) {
  const em = orm.em.fork() as Em;
  await assertUser(em, userId);
  const rows = await kysely(em)
    .selectFrom('user_notes')
    .select(['id', 'body', 'author_email', 'created_at'])
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(noteDto);
}

async function addUserNote(orm: Orm, actor: Actor, userId: string, body: string) {
  return transact(orm.em as Em, async (tx) => {
    await assertUser(tx, userId);
    const note = tx.create(UserNote, { userId, body, authorId: actor.id, authorEmail: actor.email ?? '', createdAt: new Date() });
    await tx.flush();
    recordAudit(tx, actor, { action: 'user.note', targetType: 'user', targetId: userId, after: { note: body } });
    return noteDto({ id: note.id, body, author_email: note.authorEmail, created_at: note.createdAt });
  });
}

const user = { id: pathIds.uuid };
const notesDocs = {
  list: operation('get', {
    summary: '会員のメモ（管理者のみ）',
    tags: ['ユーザー'],
    access: 'admin',
    permission: 'members:read',
    path: user,
    answers: { 200: v.object({ notes: v.array(NoteAnswer) }) },
  }),
  add: operation('post', {
    summary: '会員にメモを残す（管理者のみ、会員には見えません）',
    tags: ['ユーザー'],
    access: 'admin',
    permission: 'members:update',
    path: user,
    body: NoteInput,
    answers: { 201: v.object({ note: NoteAnswer, message: v.string() }) },
  }),
};

/** ショップ用メモ on a member: administrators only; the member's own APIs never read user_notes. */
export const userNoteRoutes = new Hono<AppEnv>()
  .get(`/users/${USER}/notes`, notesDocs.list, permit('members:read'), async (c) =>
    c.json({ notes: await userNotes(c.var.deps.orm, c.req.param('id')) }),
  )
  .post(`/users/${USER}/notes`, notesDocs.add, permit('members:update'), async (c) => {
    const input = await jsonInput(c, NoteInput);
    const signedIn = signedInUser(c);
    const note = await addUserNote(c.var.deps.orm, { id: signedIn.id, email: signedIn.email }, c.req.param('id'), input.body);
    return c.json({ note, message: 'メモを残しました。' }, 201);
  });
