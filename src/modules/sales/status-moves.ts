import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { db as kysely } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import type { SaleStatus } from './entities/sale.entity.ts';
import { SaleStatusMove, SaleStatusMoveSale } from './entities/status-move.entity.ts';

const MAIL_CHUNK = 500;

/** One event of a few hundred bytes however many sales. */
export async function recordStatusMove(
  tx: Em,
  move: { from: SaleStatus; to: SaleStatus; actorId: string; saleIds: readonly number[] },
): Promise<string> {
  const id = randomUUID();
  tx.create(SaleStatusMove, {
    id,
    fromStatus: move.from,
    toStatus: move.to,
    actorId: move.actorId,
    saleCount: move.saleIds.length,
    mailsPlannedAt: null,
    createdAt: new Date(),
  });
  await tx.flush();
  // One statement with one parameter for the ids, however many.
  const db = kysely(tx);
  await db
    .insertInto('sale_status_move_sales')
    .columns(['move_id', 'sale_id'])
    .expression(
      db.selectNoFrom((eb) => [
        eb.val(id).as('move_id'),
        eb
          .fn<number>('unnest', [eb.cast(eb.fn('string_to_array', [eb.val(move.saleIds.join(',')), eb.val(',')]), sql`int[]`)])
          .as('sale_id'),
      ]),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
  recordEvent(tx, 'SaleStatusChanged', {
    moveId: id,
    from: move.from,
    to: move.to,
    count: move.saleIds.length,
    actorId: move.actorId,
  });
  return id;
}

/** The plan is marked in the same transaction as the jobs' events, so a retried job plans nothing twice. */
export async function planRegistrationMails(em: Em, moveId: string): Promise<'done' | 'skipped'> {
  return transact(em, async (tx) => {
    const claimed = await tx.nativeUpdate(SaleStatusMove, { id: moveId, mailsPlannedAt: null }, { mailsPlannedAt: new Date() });
    if (!claimed) return 'skipped';
    // Every MAIL_CHUNK-th sale of the move starts a page (the primary key walks them in order).
    const starts = await kysely(tx)
      .selectFrom((eb) =>
        eb
          .selectFrom('sale_status_move_sales')
          .select((s) => [
            'sale_id',
            s(
              s.fn.agg<number>('row_number').over((o) => o.orderBy('sale_id')),
              '-',
              1,
            ).as('n'),
          ])
          .where('move_id', '=', moveId)
          .as('numbered'),
      )
      .select('sale_id')
      .where((eb) => eb(eb('n', '%', MAIL_CHUNK), '=', 0))
      .orderBy('sale_id')
      .execute();
    for (const { sale_id } of starts) recordEvent(tx, 'RegistrationMailsDue', { moveId, fromSaleId: sale_id });
    return starts.length ? 'done' : 'skipped';
  });
}

export async function moveSalesPage(em: Em, moveId: string, fromSaleId: number): Promise<number[]> {
  const rows = await em.find(
    SaleStatusMoveSale,
    { moveId, saleId: { $gte: fromSaleId } },
    { orderBy: { saleId: 'asc' }, limit: MAIL_CHUNK, fields: ['saleId'] },
  );
  return rows.map((row) => row.saleId);
}
