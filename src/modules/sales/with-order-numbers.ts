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
    ? await em.execute<{ id: number; order_number: string | null }[]>(
        "select id, order_number from sales where id = any(string_to_array(?, ',')::int[])",
        [ids.join(',')],
      )
    : [];
  const numbers = new Map(found.map((row) => [row.id, row.order_number]));
  return rows.map((row) => ({ ...row, order_number: numbers.get(row.sale_id) ?? null }));
}
