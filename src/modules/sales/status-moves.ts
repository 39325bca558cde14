import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { db as kysely, now } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { recordEvent, transact } from '../../events/outbox.ts';
import { AppError, validationError } from '../../http/errors.ts';
import { recordAudit } from '../audit/index.ts';
import { Sale, SaleStatus } from './entities/sale.entity.ts';
import { SaleStatusMove, SaleStatusMoveSale } from './entities/status-move.entity.ts';
import { saleDto } from './record-sale.ts';
import { oneOfIds, resolveSearch, type SalesFilter, salesFilter } from './sales-filter.ts';

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

export interface StatusMove {
  status: typeof SaleStatus.InProgress | typeof SaleStatus.Registered;
  licenseId: number;
  /** Exactly these sales … */
  saleIds?: number[];
  /** … or every sale of the licence matching the list's search. */
  filter?: Omit<SalesFilter, 'licenseId' | 'status'>;
  /** The count the administrator confirmed: if the set differs, nothing moves (409). */
  expectedCount?: number;
}

/** Sets the locked sales `ids` to status `to`. */
async function moveLocked(tx: Em, ids: number[], to: SaleStatus): Promise<Sale[]> {
  if (ids.length === 0) return [];
  // Leaving 処理中 forward or back takes a sale out of its open batch.
  await kysely(tx)
    .updateTable('sales as s')
    .set({ status: to, updated_at: now(), ...(to === SaleStatus.InProgress ? {} : { batch_id: null }) })
    .where((eb) => oneOfIds(eb.ref('s.id'), ids))
    .execute();
  return tx.find(Sale, { id: { $in: ids } }, { orderBy: { id: 'asc' }, refresh: true });
}

/**
 * Moves sales of a licence one step forward (0→1 or 1→2): exactly the chosen ones, or all those the
 * search matches. Refunded sales never move. The rows are locked first, so two identical requests
 * move the sales once; when `expectedCount` differs from what would move, nothing moves (409).
 */
export async function advanceStatus(orm: Orm, actor: { id: string; email: string }, input: StatusMove) {
  const from = input.status === SaleStatus.Registered ? SaleStatus.InProgress : SaleStatus.AwaitingExport;
  return transact(orm.em as Em, async (tx) => {
    const filter = await resolveSearch(tx, { ...input.filter, licenseId: input.licenseId, status: from });
    const chosen = input.saleIds;
    const rows = await kysely(tx)
      .selectFrom('sales as s')
      .select('s.id')
      .where(salesFilter(filter))
      .where('s.refunded_at', 'is', null)
      .$if(chosen !== undefined, (q) => q.where('s.id', 'in', chosen ?? []))
      .orderBy('s.id')
      .forUpdate()
      .execute();
    if (input.expectedCount !== undefined && rows.length !== input.expectedCount) {
      throw countChanged(rows.length, input.expectedCount);
    }
    const ids = rows.map((r) => r.id);
    // The batches these sales leave: one with no 処理中 sale left is finished (its CSV was registered).
    const batches =
      input.status === SaleStatus.Registered && ids.length
        ? await kysely(tx)
            .selectFrom('sales as s')
            .select('s.batch_id')
            .distinct()
            .where((eb) => oneOfIds(eb.ref('s.id'), ids))
            .where('s.batch_id', 'is not', null)
            .$narrowType<{ batch_id: string }>()
            .execute()
        : [];
    const sales = await moveLocked(tx, ids, input.status);
    if (batches.length)
      await closeFinishedBatches(
        tx,
        actor,
        batches.map((b) => b.batch_id),
      );
    if (sales.length) {
      const saleIds = sales.map((s) => s.id);
      await recordStatusMove(tx, { from, to: input.status, actorId: actor.id, saleIds });
      recordAudit(tx, actor, {
        action: 'sale.status',
        targetType: 'license',
        targetId: input.licenseId,
        before: { status: from, sale_ids: saleIds },
        after: { status: input.status, sale_ids: saleIds },
      });
    }
    return sales.map(saleDto);
  });
}

/**
 * Batches whose 処理中 sales all became 登録済み through the list's toolbar are completed as if
 * 「登録済みにする」 had been pressed (completed_at, by whom): the history then offers nothing more.
 */
async function closeFinishedBatches(tx: Em, actor: { email: string }, batchIds: string[]) {
  await kysely(tx)
    .updateTable('exports as e')
    .set({ completed_at: now(), completed_by: actor.email })
    .where('e.id', 'in', batchIds)
    .where((eb) => eb.ref('e.batch'))
    .where('e.completed_at', 'is', null)
    .where('e.state', '=', 'done')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('sales as s')
            .select(sql.lit(1).as('one'))
            .whereRef('s.batch_id', '=', 'e.id')
            .where('s.status', '=', SaleStatus.InProgress),
        ),
      ),
    )
    .execute();
}

/** The set an administrator confirmed is not the set that would move: nothing moved (409 with the actual count). */
export function countChanged(actual: number, expected: number) {
  return new AppError(
    'conflict',
    `対象の売上が${expected.toLocaleString('ja-JP')}件から${actual.toLocaleString('ja-JP')}件に変わったため、更新しませんでした。一覧を確認してからやり直してください。`,
    { details: { count: actual } },
  );
}

/**
 * 差し戻し: each chosen sale one step back (登録済み → 処理中, 処理中 → 出力待ち), with the reason,
 * audited, SaleStatusChanged per step. All or nothing: a sale that cannot go back (出力待ち, refunded
 * or unknown) refuses the whole request.
 */
export async function revertStatus(orm: Orm, actor: { id: string; email: string }, input: { saleIds: number[]; reason: string }) {
  return transact(orm.em as Em, async (tx) => {
    const rows = await kysely(tx)
      .selectFrom('sales')
      .select((eb) => ['id', 'status', eb('refunded_at', 'is not', null).as('refunded'), 'license_id', 'order_number'])
      .where('id', 'in', input.saleIds)
      .orderBy('id')
      .forUpdate()
      .execute();
    const found = new Map(rows.map((r) => [r.id, r]));
    const stuck = input.saleIds.filter((id) => {
      const row = found.get(id);
      return !row || row.refunded || row.status === SaleStatus.AwaitingExport;
    });
    if (stuck.length) {
      throw validationError({
        saleIds: [
          `差し戻せない売上が含まれています（${stuck
            .slice(0, 10)
            .map((id) => found.get(id)?.order_number ?? `売上ID ${id}`)
            .join('、')}）。出力待ち・返金済みの売上は差し戻せません。`,
        ],
      });
    }
    const moved: Sale[] = [];
    const steps = [
      { from: SaleStatus.Registered, to: SaleStatus.InProgress },
      { from: SaleStatus.InProgress, to: SaleStatus.AwaitingExport },
    ] as const;
    for (const { from, to } of steps) {
      const ids = rows.filter((r) => r.status === from).map((r) => r.id);
      if (!ids.length) continue;
      moved.push(...(await moveLocked(tx, ids, to)));
      await recordStatusMove(tx, { from, to, actorId: actor.id, saleIds: ids });
      recordAudit(tx, actor, {
        action: 'sale.revert',
        targetType: 'sales',
        targetId: ids.length === 1 ? String(ids[0]) : `${ids[0]}…(${ids.length})`,
        before: { status: from, sale_ids: ids },
        after: { status: to, sale_ids: ids, reason: input.reason },
      });
    }
    return moved.sort((a, b) => a.id - b.id).map(saleDto);
  });
}
