import { db as kysely } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';
import { isUuid } from '../../http/path-ids.ts';
import { japanDateTime } from '../../lib/japan-time.ts';

/** 「注文番号 20261128-0001」, or what was bought when the sale has no 注文番号 (sales from before them). */
async function orderNames(em: Em, saleIds: readonly number[]): Promise<Map<number, string>> {
  if (saleIds.length === 0) return new Map();
  const rows = await kysely(em)
    .selectFrom('sales')
    .select(['id', 'order_number', 'license_name', 'buyer_last_name', 'buyer_first_name'])
    .where('id', 'in', saleIds)
    .execute();
  return new Map(
    rows.map((row) => [
      row.id,
      row.order_number
        ? `注文番号 ${row.order_number}`
        : `${row.buyer_last_name} ${row.buyer_first_name}さんの「${row.license_name}」の売上`,
    ]),
  );
}

/** One sale (a refund, a note, a receipt): its 注文番号. */
export async function saleNames(em: Em, ids: readonly string[]): Promise<ReadonlyMap<string, string>> {
  const found = await orderNames(em, ids.filter((id) => /^\d{1,12}$/.test(id)).map(Number));
  return new Map([...found].map(([id, name]) => [String(id), name]));
}

/** A 差し戻し of several sales, recorded as 「12」 or 「12…(3)」: the first one's 注文番号 and how many more. */
export async function movedSaleNames(em: Em, ids: readonly string[]): Promise<ReadonlyMap<string, string>> {
  const parsed = ids.flatMap((id) => {
    const match = /^(\d{1,12})(?:…\((\d+)\))?$/.exec(id);
    return match ? [{ id, first: Number(match[1]), count: Number(match[2] ?? 1) }] : [];
  });
  const found = await orderNames(
    em,
    parsed.map((p) => p.first),
  );
  const names = new Map<string, string>();
  for (const p of parsed) {
    const first = found.get(p.first);
    if (first) names.set(p.id, p.count > 1 ? `${first} ほか${p.count - 1}件` : first);
  }
  return names;
}

/** A training-system CSV: when it was made and for which licence. */
export async function exportNames(em: Em, ids: readonly string[]): Promise<ReadonlyMap<string, string>> {
  const uuids = ids.filter((id) => isUuid(id));
  if (uuids.length === 0) return new Map();
  const rows = await kysely(em)
    .selectFrom('exports')
    .select(['id', 'created_at', 'license_name'])
    .where('id', 'in', uuids)
    .execute();
  return new Map(
    rows.map((row) => [
      row.id,
      `${japanDateTime(row.created_at).slice(0, 16)} に作成したCSV（${row.license_name ?? 'すべてのライセンス'}）`,
    ]),
  );
}
