import { sql } from 'kysely';
import { db as kysely } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';

/**
 * Rows naming sales by id (the export's unmappable-character warnings), each with the sale's 注文番号:
 * the number administrators see everywhere and the order detail's link (`/admin/sales/{sale_id}`).
 */
export async function withOrderNumbers<T extends { sale_id: number }>(
  em: Em,
  rows: readonly T[],
): Promise<(T & { order_number: string | null })[]> {
  const ids = [...new Set(rows.map((row) => row.sale_id))];
  const found = ids.length
    ? await kysely(em)
        .selectFrom('sales')
        .select(['id', 'order_number'])
        // One parameter however many.
        .where((eb) => sql<boolean>`${eb.ref('id')} = any(string_to_array(${ids.join(',')}, ',')::int[])`)
        .execute()
    : [];
  const numbers = new Map(found.map((row) => [row.id, row.order_number]));
  return rows.map((row) => ({ ...row, order_number: numbers.get(row.sale_id) ?? null }));
}
