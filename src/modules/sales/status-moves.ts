import { randomUUID } from 'node:crypto';
import type { Em } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import type { SaleStatus } from './entities/sale.entity.ts';
import { SaleStatusMove, SaleStatusMoveSale } from './entities/status-move.entity.ts';

/** How many sales one registration-mail job handles: a move of 660,000 sales is 1,320 small jobs. */
export const MAIL_CHUNK = 500;

/**
 * Records that `saleIds` (already updated, in this transaction) moved `from` → `to`, and the one
 * SaleStatusChanged event about it: the move's id and count, a few hundred bytes however many sales.
 * The ids go to `sale_status_move_sales` in one statement with one parameter.
 */
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
  await tx.execute(
    `insert into sale_status_move_sales (move_id, sale_id)
     select ?, unnest(string_to_array(?, ',')::int[]) on conflict do nothing`,
    [id, move.saleIds.join(',')],
  );
  recordEvent(tx, 'SaleStatusChanged', {
    moveId: id,
    from: move.from,
    to: move.to,
    count: move.saleIds.length,
    actorId: move.actorId,
  });
  return id;
}

/**
 * A move to 登録済み → its registration mails as jobs of MAIL_CHUNK sales each (RegistrationMailsDue,
 * each naming the first sale id of its page). Once per move: the plan is marked in the same
 * transaction as the jobs' events, so a retried job plans nothing twice.
 */
export async function planRegistrationMails(em: Em, moveId: string): Promise<'done' | 'skipped'> {
  return transact(em, async (tx) => {
    const claimed = await tx.nativeUpdate(SaleStatusMove, { id: moveId, mailsPlannedAt: null }, { mailsPlannedAt: new Date() });
    if (!claimed) return 'skipped';
    // Every MAIL_CHUNK-th sale of the move starts a page (the primary key walks them in order).
    const starts = await tx.execute<{ sale_id: number }[]>(
      `select sale_id from (
         select sale_id, row_number() over (order by sale_id) - 1 as n from sale_status_move_sales where move_id = ?
       ) numbered where n % ? = 0 order by sale_id`,
      [moveId, MAIL_CHUNK],
    );
    for (const { sale_id } of starts) recordEvent(tx, 'RegistrationMailsDue', { moveId, fromSaleId: sale_id });
    return starts.length ? 'done' : 'skipped';
  });
}

/** One page of a move's sales: MAIL_CHUNK of them from `fromSaleId` on, in id order. */
export async function moveSalesPage(em: Em, moveId: string, fromSaleId: number): Promise<number[]> {
  const rows = await em.find(
    SaleStatusMoveSale,
    { moveId, saleId: { $gte: fromSaleId } },
    { orderBy: { saleId: 'asc' }, limit: MAIL_CHUNK, fields: ['saleId'] },
  );
  return rows.map((row) => row.saleId);
}
