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
import { NUMERIC_ID } from '../../http/path-ids.ts';
import { jsonInput } from '../../http/validate.ts';
import { type Actor, recordAudit } from '../audit/index.ts';
import { SaleNote } from './entities/note.entity.ts';
import { SALE_NOT_FOUND } from './refund.ts';

async function assertSale(em: Em, saleId: number) {
  const sale = await kysely(em).selectFrom('sales').select('id').where('id', '=', saleId).executeTakeFirst();
  if (!sale) throw new AppError('not_found', SALE_NOT_FOUND);
}

/** An order's notes, oldest first (a timeline). */
async function saleNotes(orm: Orm, saleId: number) {
  const em = orm.em.fork() as Em;
  await assertSale(em, saleId);
  const rows = await kysely(em)
    .selectFrom('sale_notes')
    .select(['id', 'body', 'author_email', 'created_at'])
    .where('sale_id', '=', saleId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(noteDto);
}

async function addSaleNote(orm: Orm, actor: Actor, saleId: number, body: string) {
  return transact(orm.em as Em, async (tx) => {
    await assertSale(tx, saleId);
    const note = tx.create(SaleNote, { saleId, body, authorId: actor.id, authorEmail: actor.email ?? '', createdAt: new Date() });
    await tx.flush();
    recordAudit(tx, actor, { action: 'sale.note', targetType: 'sale', targetId: saleId, after: { note: body } });
    return noteDto({ id: note.id, body, author_email: note.authorEmail, created_at: note.createdAt });
  });
}

const sale = { id: pathIds.number };
const notesDocs = {
  list: operation('get', {
    summary: '注文のメモ（管理者のみ）',
    tags: ['売上'],
    access: 'admin',
    permission: 'sales:read',
    path: sale,
    answers: { 200: v.object({ notes: v.array(NoteAnswer) }) },
  }),
  add: operation('post', {
    summary: '注文にメモを残す（管理者のみ、会員には見えません）',
    tags: ['売上'],
    access: 'admin',
    permission: 'sales:update',
    path: sale,
    body: NoteInput,
    answers: { 201: v.object({ note: NoteAnswer, message: v.string() }) },
  }),
};

/** ショップ用メモ on an order: administrators only; no member API reads sale_notes. */
export const saleNoteRoutes = new Hono<AppEnv>()
  .get(`/sales/${NUMERIC_ID}/notes`, notesDocs.list, permit('sales:read'), async (c) =>
    c.json({ notes: await saleNotes(c.var.deps.orm, Number(c.req.param('id'))) }),
  )
  .post(`/sales/${NUMERIC_ID}/notes`, notesDocs.add, permit('sales:update'), async (c) => {
    const input = await jsonInput(c, NoteInput);
    const user = signedInUser(c);
    const note = await addSaleNote(c.var.deps.orm, { id: user.id, email: user.email }, Number(c.req.param('id')), input.body);
    return c.json({ note, message: 'メモを残しました。' }, 201);
  });
