import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../../db/columns.ts';

/** ショップ用メモ on an order: for administrators only, never shown to the member. */
const SaleNoteSchema = defineEntity({
  name: 'SaleNote',
  tableName: 'sale_notes',
  indexes: [
    {
      name: 'sale_notes_sale_id_index',
      expression: 'create index "sale_notes_sale_id_index" on "sale_notes" ("sale_id", "created_at")',
    },
  ],
  properties: {
    id: p.integer().primary().autoincrement(),
    saleId: p.integer().fieldName('sale_id'),
    body: p.text(),
    authorId: p.string().length(255).fieldName('author_id'),
    authorEmail: p.string().length(254).fieldName('author_email'),
    createdAt: createdAt(),
  },
});
export class SaleNote extends SaleNoteSchema.class {}
SaleNoteSchema.setClass(SaleNote);
