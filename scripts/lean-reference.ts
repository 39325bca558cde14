/**
 * The bench's minimal reference (issue 22 item 9; docs/decisions/0037-lean-requests.md, superseded by 0039): Hono and a
 * node-postgres Pool, nothing else — no ORM, no validation library, no logger, no middleware — serving
 * `GET /api/licenses` (a member's catalogue) and `GET /api/sales` (the administrators' sales list) by
 * sending PostgreSQL the very statements the shop sends for them with its caches off (SHOP_CACHES=off):
 * the session check of src/modules/accounts/session.ts, then the catalogue's one statement
 * (src/modules/licenses/catalogue.ts) or the sales list's count, page and buyers as they are now
 * (src/modules/sales/sales-list.ts, currentBuyers of src/modules/accounts/buyers.ts),
 * as the shop sends them (its Kysely statements' text with bound parameters), and answering
 * byte for byte the shop's JSON. `npm run bench` checks the bodies are identical before it measures.
 *
 * Only the default first page (no filter, no sort, no search): that is what it is measured on.
 *
 *   PORT=3999 DATABASE_URL=postgres://… AUTH_SECRET=… [SESSION_COOKIE=…] node scripts/lean-reference.ts
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { serve } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import pg from 'pg';

const secret = process.env.AUTH_SECRET ?? '';
const cookieName = process.env.SESSION_COOKIE ?? '__Host-better-auth.session_token';
// The shop's pool: node-postgres under MikroORM, at most 10 connections (src/db/orm.ts).
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, keepAlive: true });

interface SessionRow {
  token: string;
  expires_at: Date;
  created_at: Date;
  last_active_at: Date | null;
  id: string;
  role: string | null;
  banned: boolean | null;
  ban_expires: Date | null;
  two_factor_enabled: boolean | null;
}

/** The signed session cookie's token (better-auth: `token.HMAC-SHA256(secret)`), or undefined. */
function sessionToken(c: Context): string | undefined {
  const header = c.req.header('cookie');
  if (!header) return undefined;
  let raw: string | undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === cookieName) raw = part.slice(eq + 1).trim();
  }
  if (!raw) return undefined;
  const value = decodeURIComponent(raw);
  const dot = value.lastIndexOf('.');
  if (dot < 1) return undefined;
  const signature = Buffer.from(value.slice(dot + 1), 'base64');
  const expected = createHmac('sha256', secret).update(value.slice(0, dot)).digest();
  return signature.length === expected.length && timingSafeEqual(signature, expected) ? value.slice(0, dot) : undefined;
}

/** The session check: the shop's statement, its lifetime rules (decision 0028) and its once-a-minute note of use. */
async function signedIn(c: Context): Promise<SessionRow | undefined> {
  const token = sessionToken(c);
  if (!token) return undefined;
  const { rows } = await pool.query<SessionRow>(
    `select "s"."token", "s"."expires_at", "s"."created_at", "s"."last_active_at", "u"."id", "u"."email", "u"."role", "u"."email_verified", "u"."last_name", "u"."first_name", "u"."banned", "u"."ban_expires", "u"."two_factor_enabled" from "sessions" as "s" inner join "users" as "u" on "u"."id" = "s"."user_id" where "s"."token" = $1`,
    [token],
  );
  const row = rows[0];
  if (!row) return undefined;
  const now = Date.now();
  const admin = row.role === 'admin';
  const created = row.created_at.getTime();
  const lastActive = (row.last_active_at ?? row.created_at).getTime();
  let end = Math.min(row.expires_at.getTime(), created + (admin ? 12 * 3600 : 30 * 24 * 3600) * 1000);
  if (admin) end = Math.min(end, lastActive + 30 * 60 * 1000);
  if (end <= now) return undefined;
  if (row.banned && (!row.ban_expires || row.ban_expires.getTime() > now)) return undefined;
  if (now - lastActive >= 60_000) {
    const absolute = admin ? 12 * 3600 : 30 * 24 * 3600;
    await pool.query(
      'update "sessions" set "last_active_at" = now(), "updated_at" = now(), "expires_at" = least(now() + make_interval(secs => $1), "created_at" + make_interval(secs => $2)) where "token" = $3',
      [7 * 24 * 3600, absolute, token],
    );
  }
  return row;
}

const unauthorized = (c: Context) => c.json({ message: 'ログインしてください。' }, 401);

interface CatalogueRow {
  id: number;
  name: string;
  description: string;
  price: number;
  published: boolean;
  sort_order: number;
  capacity: number | null;
  sale_starts_at: Date | null;
  sale_ends_at: Date | null;
  created_at: Date;
  updated_at: Date;
  total: string;
  pictures: { file_name: string; thumbnail_name: string; width: number; height: number; original_name: string | null }[];
}

const PICTURES = '/uploads/licenses';
const PAYMENT_METHOD_LABEL: Record<string, string> = {
  card: 'クレジットカード',
  konbini: 'コンビニ払い',
  bank_transfer: '銀行振込',
};

function saleState(row: CatalogueRow, at: Date) {
  if (row.sale_starts_at && at < row.sale_starts_at) return 'before_sale';
  if (row.sale_ends_at && at >= row.sale_ends_at) return 'sale_ended';
  return 'on_sale';
}

const app = new Hono()
  .get('/healthz', (c) => c.text('ok'))
  .get('/api/licenses', async (c) => {
    const user = await signedIn(c);
    if (!user) return unauthorized(c);
    const all = user.role === 'admin' && Boolean(user.two_factor_enabled);
    const { rows } = await pool.query<CatalogueRow>(
      `select "page".*, (select coalesce(json_agg(json_build_object('file_name', "p"."file_name", 'thumbnail_name', "p"."thumbnail_name", 'width', "p"."width", 'height', "p"."height", 'original_name', "p"."original_name") order by "p"."position"), '[]'::json) as "pictures" from "license_pictures" as "p" where "p"."license_id" = "page"."id") as "pictures" from (select "l"."id", "l"."name", "l"."description", "l"."price", "l"."published", "l"."sort_order", "l"."capacity", "l"."sale_starts_at", "l"."sale_ends_at", "l"."created_at", "l"."updated_at", count(*) over() as "total" from "licenses" as "l"${all ? '' : ' where "l"."published"'} order by "l"."sort_order" asc, "l"."id" asc limit $1 offset $2) as "page" order by "page"."sort_order" asc, "page"."id" asc`,
      [20, 0],
    );
    return c.json({
      licenses: rows.map((row) => ({
        id: row.id,
        name: row.name,
        description: row.description,
        price: row.price,
        published: row.published,
        sort_order: row.sort_order,
        capacity: row.capacity,
        sale_starts_at: row.sale_starts_at ? row.sale_starts_at.toISOString() : null,
        sale_ends_at: row.sale_ends_at ? row.sale_ends_at.toISOString() : null,
        created_at: row.created_at.toISOString(),
        updated_at: row.updated_at.toISOString(),
        picture_directory: PICTURES,
        pictures_pathes: row.pictures.map((p) => `${PICTURES}/${p.file_name}`),
        pictures: row.pictures.map((p) => ({
          filename: p.file_name,
          url: `${PICTURES}/${p.file_name}`,
          thumbnail_url: `${PICTURES}/${p.thumbnail_name}`,
          width: p.width,
          height: p.height,
          original_name: p.original_name,
        })),
        // The bench's licences have no seat limit, so no seat count is read (the shop reads none either).
        sale_state: saleState(row, new Date()),
        remaining_seats: null,
      })),
      total: Number(rows[0]?.total ?? 0),
      page: 1,
      per_page: 20,
    });
  })
  .get('/api/sales', async (c) => {
    const user = await signedIn(c);
    if (!user) return unauthorized(c);
    if (user.role !== 'admin' || !user.two_factor_enabled) return c.json({ message: 'この操作を行う権限がありません。' }, 403);
    const count = await pool.query<{ n: number }>(
      'select cast(count(*) as integer) as "n" from (select 1 as "one" from "sales" as "s" limit $1) as "capped"',
      [10_001],
    );
    const { rows } = await pool.query(
      `with "page" as (select "s"."id", "s"."paid_at" from "sales" as "s" order by "s"."paid_at" desc, "s"."id" desc limit $1 offset $2) select "s"."id", "s"."order_number" as "orderNumber", "s"."license_id" as "licenseId", "s"."license_name" as "licenseName", "s"."amount", "s"."currency", "s"."status", "s"."paid_at" as "paidAt", "s"."refunded_at" as "refundedAt", "s"."refund_requested_at" as "refundRequestedAt", "s"."refunded_amount" as "refundedAmount", "s"."payment_method" as "paymentMethod", "s"."receipt_url" as "receiptUrl", "s"."buyer_first_name" as "buyerFirstName", "s"."buyer_last_name" as "buyerLastName", "s"."buyer_email" as "buyerEmail", "s"."user_id" as "userId", "s"."buyer_affiliation" as "buyerAffiliation", "s"."buyer_affiliation_name" as "buyerAffiliationName", "s"."buyer_affiliation_other" as "buyerAffiliationOther", "s"."buyer_gone" as "buyerGone" from "page" inner join "sales" as "s" on "s"."id" = "page"."id" order by "page"."paid_at" desc, "page"."id" desc`,
      [20, 0],
    );
    // The buyers as they are now (one statement, a parameter per id).
    const userIds = [...new Set(rows.flatMap((s) => (s.userId ? [s.userId as string] : [])))];
    const buyers = new Map<string, { email: string; lastName: string; firstName: string }>();
    if (userIds.length > 0) {
      const { rows: found } = await pool.query<{ id: string; email: string; lastName: string; firstName: string }>(
        `select "id", "email", "last_name" as "lastName", "first_name" as "firstName", "affiliation", "affiliation_name" as "affiliationName", "affiliation_other" as "affiliationOther" from "users" where "id" in (${userIds.map((_, i) => `$${i + 1}`).join(', ')})`,
        userIds,
      );
      for (const buyer of found) buyers.set(buyer.id, buyer);
    }
    const n = count.rows[0]?.n ?? 0;
    return c.json({
      sales: rows.map((s) => {
        const dto = {
          id: s.id,
          order_number: s.orderNumber ?? null,
          license_id: s.licenseId,
          license_name: s.licenseName,
          amount: s.amount,
          currency: s.currency,
          status: s.status,
          status_label: ['出力待ち', '処理中', '登録済み'][s.status] ?? '',
          paid_at: s.paidAt.toISOString(),
          refunded_at: s.refundedAt ? s.refundedAt.toISOString() : null,
          refunded_amount: s.refundedAmount ?? 0,
          payment_method: s.paymentMethod ?? 'card',
          payment_method_label: PAYMENT_METHOD_LABEL[s.paymentMethod ?? 'card'] ?? '',
          refund_requested_at: s.refundRequestedAt && !s.refundedAt ? s.refundRequestedAt.toISOString() : null,
          receipt_url: s.receiptUrl,
          user: { first_name: s.buyerFirstName, last_name: s.buyerLastName, email: s.buyerEmail },
          user_id: s.userId ?? null,
          buyer_affiliation: s.buyerAffiliation,
          buyer_affiliation_name: s.buyerAffiliationName,
          buyer_affiliation_other: s.buyerAffiliationOther,
          buyer_gone: s.buyerGone ?? null,
          licenseId: s.licenseId,
        };
        const buyer = s.userId ? buyers.get(s.userId) : undefined;
        return buyer ? { ...dto, user: { first_name: buyer.firstName, last_name: buyer.lastName, email: buyer.email } } : dto;
      }),
      total: Math.min(n, 10_000),
      total_capped: n > 10_000,
      members_capped: false,
      page: 1,
      per_page: 20,
    });
  });

serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: '127.0.0.1' }, () => console.log('listening'));
// Exits (rather than dies) on a signal, so `node --cpu-prof` writes its profile.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0));
