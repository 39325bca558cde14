import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../../db/columns.ts';
import type { SaleStatus } from './sale.entity.ts';

/**
 * One move of sales from one state to the next (処理中にする, 登録済みにする, 差し戻し, a batch export
 * or its completion), however many sales it moved. The event about it (SaleStatusChanged) names the
 * move and its count, never the sales: whoever needs them pages through `sale_status_move_sales`.
 * `mailsPlannedAt` marks that the registration mails of a move to 登録済み were split into jobs.
 */
const SaleStatusMoveSchema = defineEntity({
  name: 'SaleStatusMove',
  tableName: 'sale_status_moves',
  properties: {
    id: p.uuid().primary(),
    fromStatus: p.smallint().$type<SaleStatus>().fieldName('from_status'),
    toStatus: p.smallint().$type<SaleStatus>().fieldName('to_status'),
    actorId: p.string().length(255).fieldName('actor_id'),
    saleCount: p.integer().fieldName('sale_count'),
    mailsPlannedAt: p.datetime().fieldName('mails_planned_at').nullable(),
    createdAt: createdAt(),
  },
});
export class SaleStatusMove extends SaleStatusMoveSchema.class {}
SaleStatusMoveSchema.setClass(SaleStatusMove);

/** The sales of a move, in id order (the key pages through them). */
const SaleStatusMoveSaleSchema = defineEntity({
  name: 'SaleStatusMoveSale',
  tableName: 'sale_status_move_sales',
  // The moves of one sale (the order detail's history).
  indexes: [
    {
      name: 'sale_status_move_sales_sale_id_index',
      expression: 'create index "sale_status_move_sales_sale_id_index" on "sale_status_move_sales" ("sale_id")',
    },
  ],
  properties: {
    moveId: p.uuid().fieldName('move_id').primary(),
    saleId: p.integer().fieldName('sale_id').primary(),
  },
});
export class SaleStatusMoveSale extends SaleStatusMoveSaleSchema.class {}
SaleStatusMoveSaleSchema.setClass(SaleStatusMoveSale);
