/**
 * 受注CSV in `npm run bench` (issue 33 item 1, docs/decisions/0044-order-csv-and-partial-refunds.md):
 * March 2026 (Japan time) is seeded with 100,000 paid sales of the bench's members, 2,000 of them
 * refunded in March (half of them in part), and 1,000 sales of February refunded in March (the month's
 * 返金のみ rows). `GET /api/sales/orders.csv?from=2026-03-01&to=2026-03-31` is read from the web process
 * to its last byte; the figure is its seconds and rows/s, and the web process's memory growth (RSS
 * sampled every 50 ms from before the request to the last byte). The file's sums are checked against
 * `GET /api/sales/summary` for the month before anything is reported.
 */
import { readFileSync } from 'node:fs';

export const ORDER_MONTH = { from: '2026-03-01', to: '2026-03-31', sales: 100_000, earlierRefunded: 1_000 };
export const ORDER_CSV_TARGET_SECONDS = 5;

type Sql = (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

const uid = (n: string) => `'00000000-0000-4000-8000-' || lpad((${n})::text, 12, '0')`;
/** The shop's 注文番号 shape, unique by construction (g in base32 under its own month prefix). */
const orderNumber = (prefix: string) =>
  `'${prefix}' || (select string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((g >> (5 * i)) & 31) + 1, 1), '' order by i desc)
                   from generate_series(0, 5) i)`;

/** `count` sales of the bench's members from `start`, `step` seconds apart, tagged `cs_orders_<tag>_g`. */
function insertSales(tag: string, count: number, start: string, step: number, members: number) {
  return `insert into sales (user_id, buyer_last_name, buyer_first_name, buyer_email, buyer_affiliation, buyer_affiliation_name,
       license_id, license_name, amount, currency, checkout_session_id, stripe_session_id, stripe_payment_intent_id,
       ordered_at, paid_at, payment_method, status, created_at, updated_at, order_number)
     select ${uid(`1 + g % ${members}`)}, '購入時', '氏名' || g, 'order-' || g || '@example.jp', 1 + g % 6, '〇〇署',
            1 + g % 1000, 'ライセンス ' || (1 + g % 1000), 11000 + (g % 7) * 1100, 'jpy', gen_random_uuid(),
            'cs_orders_${tag}_' || g, 'pi_orders_${tag}_' || g,
            timestamptz '${start}' + ((g * ${step} - 600) || ' seconds')::interval,
            timestamptz '${start}' + ((g * ${step}) || ' seconds')::interval,
            case when g % 4 = 0 then 'konbini' else 'card' end, 2, now(), now(), ${orderNumber(`LS-${tag}-`)}
     from generate_series(1, ${count}) g`;
}

/** Refunds confirmed a day after `days`… of the sales tagged `tag` whose number is a multiple of `every`. */
async function refund(sql: Sql, tag: string, every: number, after: string, part: boolean) {
  await sql(
    `with picked as (
       select id, amount, paid_at from sales
        where stripe_session_id like 'cs_orders_${tag}_%' and substr(stripe_session_id, ${12 + tag.length})::int % ${every} = 0)
     insert into sale_refunds (sale_id, amount, reason, refunded_at, created_at, requested_at)
     select id, case when ${part} and id % 2 = 0 then amount / 2 else amount end, 'ベンチ', paid_at + interval '${after}',
            paid_at + interval '${after}', paid_at + interval '${after}'
       from picked`,
  );
  await sql(
    `update sales s set refunded_amount = r.total, refunded_at = case when r.total >= s.amount then r.last else null end
       from (select sale_id, sum(amount) total, max(refunded_at) last from sale_refunds group by sale_id) r
      where r.sale_id = s.id and s.stripe_session_id like 'cs_orders_${tag}_%'`,
  );
}

/** March 2026 in Japan (once per database: a reused one keeps it). Needs the bench's members and licences. */
export async function seedOrderMonth(sql: Sql, members: number): Promise<void> {
  const [row] = await sql(`select count(*)::int n from sales where stripe_session_id like 'cs_orders_2603_%'`);
  if (Number(row?.n) === ORDER_MONTH.sales) return;
  // 2026-03-01 00:00 JST is 2026-02-28 15:00 UTC; 26 s apart, the last sale is on 3/31.
  await sql(insertSales('2603', ORDER_MONTH.sales, '2026-02-28T15:00:00Z', 26, members));
  // February's sales, an hour apart from 2/1, refunded 30 days later: in March.
  await sql(insertSales('2602', ORDER_MONTH.earlierRefunded, '2026-01-31T15:00:00Z', 2_400, members));
  await refund(sql, '2603', 50, '1 day', true);
  await refund(sql, '2602', 1, '30 days', true);
  await sql('analyze sales; analyze sale_refunds');
}

/** CPU seconds (user + system) a process has used so far (clock ticks of 1/100 s); 0 once it is gone. */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** The CPU seconds of the web process and of the database's server processes (on this machine): wall time misleads on a loaded one. */
async function cpuNow(sql: Sql, webPid: number) {
  const backends = await sql('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
  const db = new Map(backends.map(({ pid }) => [Number(pid), cpuSeconds(Number(pid))]));
  return { web: cpuSeconds(webPid), db };
}

const rssMb = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
};

interface Csv {
  rows: number;
  seconds: number;
  peakMb: number;
  webCpu: number;
  dbCpu: number;
  sums: { sales: number; amount: number; tax: number; refunded: number; refundedTax: number };
}

/** Reads the month's 受注CSV to its last byte, summing as it goes (quoted cells hold no comma here). */
async function readOrderCsv(base: string, cookie: string, webPid: number, sql: Sql, to = ORDER_MONTH.to): Promise<Csv> {
  const cpu = await cpuNow(sql, webPid);
  let peak = rssMb(webPid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(webPid))), 50);
  const t0 = performance.now();
  const res = await fetch(`${base}/api/sales/orders.csv?from=${ORDER_MONTH.from}&to=${to}`, { headers: { cookie } });
  if (!res.ok || !res.body) throw new Error(`orders.csv answered ${res.status}: ${await res.text()}`);
  const sums = { sales: 0, amount: 0, tax: 0, refunded: 0, refundedTax: 0 };
  let rows = -1;
  let rest = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body) {
    const lines = (rest + decoder.decode(chunk, { stream: true })).split('\r\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (++rows === 0) continue;
      const cells = line.split(',');
      if (cells[17] === '売上') sums.sales++;
      sums.amount += Number(cells[8]);
      sums.tax += Number(cells[9]);
      sums.refunded += Number(cells[14]);
      sums.refundedTax += Number(cells[16]);
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, rssMb(webPid));
  const after = await cpuNow(sql, webPid);
  let dbCpu = 0;
  for (const [pid, used] of after.db) dbCpu += used - (cpu.db.get(pid) ?? 0);
  return { rows, seconds, peakMb: peak, sums, webCpu: after.web - cpu.web, dbCpu };
}

/** The month in Shift_JIS (CP932, as older Excel wants it): seconds and lines only. */
async function readCp932(
  base: string,
  cookie: string,
  webPid: number,
): Promise<{ rows: number; seconds: number; webCpu: number }> {
  const cpu = cpuSeconds(webPid);
  const t0 = performance.now();
  const res = await fetch(`${base}/api/sales/orders.csv?from=${ORDER_MONTH.from}&to=${ORDER_MONTH.to}&encoding=shift_jis`, {
    headers: { cookie },
  });
  if (!res.ok || !res.body) throw new Error(`orders.csv (shift_jis) answered ${res.status}`);
  let lines = 0;
  for await (const chunk of res.body) for (const byte of chunk as Uint8Array) if (byte === 10) lines++;
  return { rows: lines - 1, seconds: (performance.now() - t0) / 1000, webCpu: cpuSeconds(webPid) - cpu };
}

export interface OrderCsvVerdict {
  figure: string;
  ratio: number;
  target: string;
  met: boolean;
}

/**
 * The 受注CSV figure: a warm-up download of one day first (the route's modules load on first use, as a
 * shop's web process has them by month's end), then one of the month's first 3 days (about 10,000
 * rows), then `runs` downloads of the month; the best is reported. Memory growth is the web process's
 * peak RSS above its RSS after the warm-up: flat memory is the month's growth no larger than 3 days'
 * by more than a batch or two.
 */
export async function orderCsvFigures(
  base: string,
  cookie: string,
  webPid: number,
  report: (row: Record<string, unknown>) => void,
  sql: Sql,
  runs = 2,
): Promise<OrderCsvVerdict[]> {
  await (await fetch(`${base}/api/sales/orders.csv?from=2026-03-01&to=2026-03-01`, { headers: { cookie } })).arrayBuffer();
  const summaryRes = await fetch(`${base}/api/sales/summary?from=${ORDER_MONTH.from}&to=${ORDER_MONTH.to}`, {
    headers: { cookie },
  });
  const { summary } = (await summaryRes.json()) as { summary: Record<string, number> };
  const baseline = rssMb(webPid);
  const days = await readOrderCsv(base, cookie, webPid, sql, '2026-03-03');
  const daysGrowth = Math.round(days.peakMb - baseline);
  report({ kind: 'order-csv-3-days', rows: days.rows, seconds: +days.seconds.toFixed(2), webGrowthMb: daysGrowth });
  let best = Number.POSITIVE_INFINITY;
  let growth = 0;
  let rows = 0;
  let equal = true;
  for (let run = 0; run < runs; run++) {
    const csv = await readOrderCsv(base, cookie, webPid, sql);
    const expected = {
      sales: summary.count,
      amount: summary.amount,
      tax: summary.tax,
      refunded: summary.refunded_amount,
      refundedTax: summary.refunded_tax,
    };
    const same = JSON.stringify(csv.sums) === JSON.stringify(expected);
    equal &&= same;
    if (!same) report({ kind: 'order-csv-mismatch', csv: csv.sums, summary: expected });
    report({
      kind: 'order-csv',
      run,
      rows: csv.rows,
      seconds: +csv.seconds.toFixed(2),
      rowsPerSecond: Math.round(csv.rows / csv.seconds),
      webCpuSeconds: +csv.webCpu.toFixed(2),
      databaseCpuSeconds: +csv.dbCpu.toFixed(2),
      webGrowthMb: Math.round(csv.peakMb - baseline),
      sumsEqualSummary: same,
    });
    best = Math.min(best, csv.seconds);
    growth = Math.max(growth, Math.round(csv.peakMb - baseline));
    rows = csv.rows;
  }
  const cp932 = await readCp932(base, cookie, webPid);
  report({
    kind: 'order-csv-shift-jis',
    rows: cp932.rows,
    seconds: +cp932.seconds.toFixed(2),
    webCpuSeconds: +cp932.webCpu.toFixed(2),
  });
  return [
    {
      figure: `受注CSV: ${rows} rows of a month (s, best of ${runs}; ${Math.round(rows / best)} rows/s)`,
      ratio: +best.toFixed(2),
      target: `≤ ${ORDER_CSV_TARGET_SECONDS}`,
      met: equal && best <= ORDER_CSV_TARGET_SECONDS,
    },
    {
      figure: `受注CSV in Shift_JIS: ${cp932.rows} rows (s, one run)`,
      ratio: +cp932.seconds.toFixed(2),
      target: 'reported',
      met: cp932.rows === rows,
    },
    {
      figure: `受注CSV: web process memory growth (MB; ${days.rows} rows: ${daysGrowth} MB)`,
      ratio: growth,
      target: 'reported',
      met: true,
    },
  ];
}
