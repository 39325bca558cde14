import iconv from 'iconv-lite';
import { sql } from 'kysely';
import { type Db, japanTimeText, db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import { transact } from '../../events/outbox.ts';
import { isRole, ROLE_LABELS } from '../../http/access.ts';
import { CP932, contentDisposition, csvHeader, csvLines, replaceUnmappable } from '../../lib/csv.ts';
import { jstStamp } from '../../lib/japan-time.ts';
import type { Logger } from '../../lib/logger.ts';
import { type Actor, recordAudit } from '../audit/index.ts';
import { AFFILIATIONS } from './affiliations.ts';
import { orderOf, type UserSearch, userWhere } from './user-search.ts';

const MEMBER_CSV_HEADER = [
  '姓',
  '名',
  'セイ',
  'メイ',
  'メールアドレス',
  'メールアドレスの確認',
  '所属',
  '所属名',
  'その他の所属',
  'お知らせメール',
  '権限',
  '登録日時',
  '最終ログイン日時',
  '会員ID',
] as const;

/** The file streams while memory stays flat. */
const BATCH = 1_000;

interface MemberRow {
  id: string;
  email: string;
  last_name: string;
  first_name: string;
  last_name_kana: string | null;
  first_name_kana: string | null;
  email_verified: boolean;
  affiliation: number | null;
  affiliation_name: string;
  affiliation_other: string | null;
  distribution: boolean;
  role: string;
  created: string;
  last_sign_in: string | null;
}

const cellsOf = (row: MemberRow): string[] => [
  row.last_name,
  row.first_name,
  row.last_name_kana ?? '',
  row.first_name_kana ?? '',
  row.email,
  row.email_verified ? '確認済み' : '未確認',
  AFFILIATIONS[row.affiliation as keyof typeof AFFILIATIONS] ?? '',
  row.affiliation_name,
  row.affiliation_other ?? '',
  row.distribution ? '受け取る' : '受け取らない',
  isRole(row.role) ? ROLE_LABELS[row.role] : row.role,
  row.created,
  row.last_sign_in ?? '',
  row.id,
];

export type MemberCsvQuery = Pick<UserSearch, 'name' | 'email' | 'affiliations' | 'sort'> & {
  encoding: 'utf-8' | 'shift_jis';
};

/** The members are fixed and audited before a byte leaves, then streamed in batches with no transaction held open while a slow client reads. */
export async function openMemberCsv(orm: Orm, actor: Actor, query: MemberCsvQuery, log?: Logger) {
  const db = kysely(orm.em.fork() as Em);
  const ids = await memberIds(db, query);
  const filters = {
    ...(query.name ? { name: query.name } : {}),
    ...(query.email ? { email: query.email } : {}),
    ...(query.affiliations ? { affiliations: query.affiliations } : {}),
    sort: query.sort,
  };
  await transact(orm.em as Em, async (tx) => {
    recordAudit(tx, actor, {
      action: 'user.export',
      targetType: 'user',
      targetId: 'csv',
      after: { ...filters, encoding: query.encoding, rows: ids.length },
    });
  });
  const cp932 = query.encoding === 'shift_jis';
  const stamp = jstStamp(new Date());
  return {
    rows: ids.length,
    stream: memberCsvStream(db, ids, cp932, log),
    contentType: cp932 ? 'text/csv; charset=Shift_JIS' : 'text/csv; charset=utf-8',
    disposition: contentDisposition({ utf8: `会員一覧_${stamp}.csv`, ascii: `members_${stamp}.csv` }),
  };
}

async function memberIds(db: Db, query: MemberCsvQuery): Promise<string[]> {
  const where = userWhere(query);
  const order = orderOf(query.sort);
  const dir = order.desc ? 'desc' : 'asc';
  const listed = await db
    .selectFrom(
      db
        .selectFrom('users as u')
        .select((eb) => [
          'u.id',
          eb.fn
            .agg<number>('row_number')
            .over((o) => o.orderBy(order.column, order.modifiers).orderBy('u.id', dir))
            .as('n'),
        ])
        .$call((qb) => (where ? qb.where(where) : qb))
        .as('ordered'),
    )
    .select((eb) =>
      eb.fn
        .agg<string | null>('string_agg', ['ordered.id', sql.lit(',')])
        .orderBy('ordered.n')
        .as('ids'),
    )
    .executeTakeFirst();
  // User ids are uuids: no commas.
  return listed?.ids ? listed.ids.split(',') : [];
}

function memberRows(db: Db, batch: string[]): Promise<MemberRow[]> {
  if (!batch.length) return Promise.resolve([]);
  return (
    db
      .selectFrom('users')
      .select((eb) => [
        'id',
        'email',
        'last_name',
        'first_name',
        'last_name_kana',
        'first_name_kana',
        'email_verified',
        'affiliation',
        'affiliation_name',
        'affiliation_other',
        'distribution',
        'role',
        japanTimeText(eb.ref('users.created_at')).as('created'),
        japanTimeText(eb.ref('users.last_sign_in_at')).$castTo<string | null>().as('last_sign_in'),
      ])
      // One parameter for the batch's ids (user ids are uuids: no commas).
      .where((eb) => eb('id', '=', eb.fn.any(eb.fn<string[]>('string_to_array', [eb.val(batch.join(',')), eb.val(',')]))))
      .execute()
  );
}

function memberCsvStream(db: Db, ids: string[], cp932: boolean, log: Logger | undefined) {
  const encode = (text: string) => (cp932 ? iconv.encode(replaceUnmappable(text), CP932) : Buffer.from(text, 'utf8'));
  let next = 0;
  let done = false;
  const started = Date.now();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encode(csvHeader(MEMBER_CSV_HEADER, !cp932)));
    },
    async pull(controller) {
      if (done) return;
      try {
        const batch = ids.slice(next, next + BATCH);
        next += batch.length;
        const rows = await memberRows(db, batch);
        if (done) return; // the client went away meanwhile
        const byId = new Map(rows.map((row) => [row.id, row]));
        const ordered = batch.flatMap((id) => byId.get(id) ?? []);
        if (ordered.length) controller.enqueue(encode(csvLines(ordered.map(cellsOf))));
        if (next >= ids.length) {
          done = true;
          log?.info('member csv written', { rows: ids.length, ms: Date.now() - started });
          controller.close();
        }
      } catch (error) {
        if (done) return;
        done = true;
        log?.error('member csv failed', { error: String(error), rows: next });
        controller.error(error);
      }
    },
    cancel() {
      done = true;
    },
  });
}
