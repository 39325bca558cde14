import iconv from 'iconv-lite';
import { db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { transact } from '../../events/outbox.ts';
import { CP932, contentDisposition, csvHeader, csvLines, replaceUnmappable } from '../../lib/csv.ts';
import { japanDateTime, jstStamp } from '../../lib/japan-time.ts';
import type { AuditVocabulary } from './labels.ts';
import type { AuditExportQuery } from './schemas.ts';
import {
  type Actor,
  type AuditRow,
  auditFilter,
  auditLogDto,
  distinctValues,
  entryColumns,
  recordAudit,
  saleIdsOf,
} from './service.ts';
import { targetNames } from './target-names.ts';

const COLUMNS = ['日時（日本時間）', '操作者', '操作', '対象の種類', '対象のID', '対象の名前', '変更内容', '対象の売上（件）'];
const BATCH = 1_000;

/** One entry as a CSV record, in the screen's words: what changed reads 「項目: 前 → 後」. */
function record(entry: ReturnType<typeof auditLogDto>): string[] {
  // A creation, a deletion or an event (a sign-in) is what it held: 「項目: 値」.
  const record = entry.changes.every((c) => c.before === null) || entry.changes.every((c) => c.after === null);
  const changes = entry.changes.map((change) =>
    record
      ? `${change.label}: ${change.after ?? change.before ?? ''}`
      : `${change.label}: ${change.before ?? '（なし）'} → ${change.after ?? '（なし）'}`,
  );
  return [
    japanDateTime(entry.created_at),
    entry.actor_email ?? '不明',
    entry.action_label,
    entry.target_label,
    entry.target_id,
    entry.target_name,
    changes.join(' ／ '),
    entry.sales ? String(entry.sales.count) : '',
  ];
}

/** The filters an export used, as its own audit entry records them (only those given). */
const filtersOf = (query: AuditExportQuery) =>
  Object.fromEntries(
    (['actor', 'action', 'target_type', 'target_id', 'from', 'to'] as const)
      .filter((key) => query[key] !== '')
      .map((key) => [key, query[key]]),
  );

/**
 * GET /api/audit-logs/export.csv: every entry the screen's filters find, newest first, as the screen
 * words them (the target by its id and by the name the screen shows) — UTF-8 with a BOM, or CP932
 * (characters it lacks become 〓) — formula cells neutralised (csvLines). The export is itself audited (audit.export) before the first byte. Entries are read in
 * batches by a keyset walk of the (created_at, id) index and streamed, however many there are.
 */
export async function auditLogExport(orm: Orm, actor: Actor, query: AuditExportQuery, words: AuditVocabulary) {
  const em = orm.em.fork() as Em;
  const actors = query.actor ? await distinctValues(em, 'actor_email', query.actor) : null;
  const filter = auditFilter(query, actors);
  const now = new Date();
  await transact(orm.em as Em, async (tx) => {
    recordAudit(tx, actor, {
      action: 'audit.export',
      targetType: 'audit_log',
      targetId: jstStamp(now),
      after: { audit_filters: filtersOf(query), encoding: query.encoding },
    });
  });
  const cp932 = query.encoding === 'shift_jis';
  const encode = (text: string) => (cp932 ? iconv.encode(replaceUnmappable(text), CP932) : Buffer.from(text, 'utf8'));

  async function* chunks(): AsyncGenerator<Buffer> {
    yield encode(csvHeader(COLUMNS, !cp932));
    if (actors?.length === 0) return;
    let after: { at: string; id: string } | null = null;
    for (;;) {
      const from = after;
      const rows: AuditRow[] = await kysely(em)
        .selectFrom('audit_logs as a')
        .select((eb) => [
          ...entryColumns(eb),
          eb.fn<number | null>('jsonb_array_length', [saleIdsOf(eb)]).as('sale_count'),
          eb.lit(null).as('first_sale_ids'),
        ])
        // A keyset walk: the batch after the last entry read, by the (created_at, id) index.
        .where((eb) =>
          from ? eb.and([filter(eb), eb(eb.refTuple('a.created_at', 'a.id'), '<', eb.tuple(from.at, from.id))]) : filter(eb),
        )
        .orderBy('a.created_at', 'desc')
        .orderBy('a.id', 'desc')
        .limit(BATCH)
        .execute();
      if (rows.length === 0) return;
      const targets = await targetNames(em, words, rows);
      yield encode(csvLines(rows.map((row, i) => record(auditLogDto(words, row, { target: targets[i] })))));
      const last = rows[rows.length - 1] as AuditRow;
      after = { at: last.created_at, id: last.id };
      if (rows.length < BATCH) return;
    }
  }

  const stamp = jstStamp(now);
  return {
    chunks: chunks(),
    contentType: `text/csv; charset=${cp932 ? 'Shift_JIS' : 'UTF-8'}`,
    disposition: contentDisposition({ utf8: `操作履歴_${stamp}.csv`, ascii: `audit-log_${stamp}.csv` }),
  };
}
