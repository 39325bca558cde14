// What CP932 (Shift_JIS) cannot hold in an export's cells: shown before a Shift_JIS export, and the
// reason one is refused (422) unless such characters may become 〓.
import type { Em, Orm } from '../../../db/orm.ts';
import { validationError } from '../../../http/errors.ts';
import { unmappableIn } from '../../../lib/csv.ts';
import { SaleStatus } from '../entities/sale.entity.ts';
import { resolveSearch, type SalesFilter } from '../service.ts';
import { EXPORT_HEADER, FIELD_OF_COLUMN, jstCell } from './columns.ts';
import { type ExportSource, records, spanOf } from './query.ts';

export interface Unmappable {
  sale_id: number;
  field: string;
  text: string;
  characters: string[];
}

/** Every cell that CP932 cannot hold, with its sale and field (the screen shows them before a Shift_JIS export). */
export async function findUnmappable(
  em: Em,
  source: ExportSource,
  groupName: string,
  limit = 200,
): Promise<{ problems: Unmappable[]; total: number }> {
  const problems: Unmappable[] = [];
  let total = 0;
  // A member's cells are checked once; each of their sales is listed.
  const check = (cells: string[]) => cells.map((text) => ({ text, characters: unmappableIn(text) }));
  for await (const batch of records(em, source, await spanOf(em, source), groupName, check)) {
    batch.ids.forEach((saleId, i) => {
      const licenseName = batch.licenseNames[i] ?? '';
      const cells = [
        ...(batch.people[i] ?? []),
        { text: licenseName, characters: unmappableIn(licenseName) },
        { text: jstCell(batch.paidAt[i] ?? 0), characters: [] as string[] },
      ];
      cells.forEach(({ text, characters }, column) => {
        if (!characters.length) return;
        total++;
        if (problems.length < limit) {
          problems.push({ sale_id: saleId, field: FIELD_OF_COLUMN[column] ?? EXPORT_HEADER[column] ?? '', text, characters });
        }
      });
    });
  }
  return { problems, total };
}

/** GET /api/exports/preflight: what a Shift_JIS (CP932) export of these sales could not hold. */
export async function preflight(orm: Orm, filter: SalesFilter, batch: boolean, groupName: string) {
  const em = orm.em.fork() as Em;
  // A batch would hold the 出力待ち sales of the search.
  const { problems, total } = await findUnmappable(
    em,
    { filter: await resolveSearch(em, batch ? { ...filter, status: SaleStatus.AwaitingExport } : filter) },
    groupName,
  );
  return { problems, total };
}

export function unmappableError(found: { problems: Unmappable[]; total: number }) {
  const first = found.problems
    .slice(0, 3)
    .map((p) => `売上ID ${p.sale_id} の「${p.characters.join('')}」`)
    .join('、');
  return validationError(
    {
      encoding: [
        `Shift_JIS（CP932）で表せない文字が${found.total}か所あります（${first}など）。UTF-8で作成するか、〓に置き換えて作成してください。`,
      ],
    },
    'Shift_JIS（CP932）で表せない文字があります。',
  );
}
