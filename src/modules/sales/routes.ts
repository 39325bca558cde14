import { Hono } from 'hono';
import type { AppEnv } from '../../http/context.ts';
import { permit, signedInUser } from '../../http/guards.ts';
import { jsonInput, queryInput } from '../../http/validate.ts';
import { SALE_STATUS_LABEL, SALE_STATUSES } from './entities/sale.entity.ts';
import { exportRoutes } from './export-routes.ts';
import { issuedDocumentRoutes } from './issued-document-routes.ts';
import { licenseCountRoutes } from './license-counts.ts';
import { saleNoteRoutes } from './notes.ts';
import { quotationRoutes } from './quotation.ts';
import { receiptRoutes } from './receipt-routes.ts';
import { refundRoutes } from './refund.ts';
import { resendRoutes } from './resend.ts';
import { salesDocs } from './responses.ts';
import { listSales, salesCounts } from './sales-list.ts';
import { CountsQuery, RevertInput, SalesListQuery, StatusUpdateInput, toFilter } from './schemas.ts';
import { advanceStatus, revertStatus } from './status-moves.ts';
import { summaryRoutes } from './summary-routes.ts';

const saleRoutes = new Hono<AppEnv>()
  .get('/sales', salesDocs.list, permit('sales:read'), async (c) => {
    const query = queryInput(c, SalesListQuery);
    // c.get, not c.var (which copies every variable into a new object): the administrators' busiest call.
    const { orm, changes } = c.get('deps');
    return c.json(await listSales(orm, toFilter(query), query.page, query.per_page, changes));
  })
  .get('/sales/counts', salesDocs.counts, permit('sales:read'), async (c) => {
    const query = queryInput(c, CountsQuery);
    const statuses = SALE_STATUSES.map((value) => ({ value, label: SALE_STATUS_LABEL[value] }));
    return c.json({ counts: await salesCounts(c.var.deps.orm, toFilter(query)), statuses });
  })
  .post('/sales/update', salesDocs.update, permit('sales:update'), async (c) => {
    const input = await jsonInput(c, StatusUpdateInput);
    const user = signedInUser(c);
    const { q, paidFrom, paidTo } = toFilter(input);
    const sales = await advanceStatus(
      c.var.deps.orm,
      { id: user.id, email: user.email },
      {
        status: input.status,
        licenseId: input.licenseId,
        saleIds: input.saleIds,
        filter: { q, paidFrom, paidTo },
        expectedCount: input.expected_count,
      },
    );
    return c.json({
      sales,
      message: sales.length
        ? `${sales.length.toLocaleString('ja-JP')}件の状態を更新しました。`
        : '更新できる売上はありませんでした。',
    });
  })
  .post('/sales/revert', salesDocs.revert, permit('sales:update'), async (c) => {
    const input = await jsonInput(c, RevertInput);
    const user = signedInUser(c);
    const sales = await revertStatus(c.var.deps.orm, { id: user.id, email: user.email }, input);
    return c.json({ sales, message: `${sales.length.toLocaleString('ja-JP')}件を差し戻しました。` });
  });
// GET /sales/user/{id}, a member's purchase history, is composed with the checkout module's konbini
// orders in src/host/member-history.ts.

/** The sales module's API, mounted under /api: the sales list, status moves, the training-system CSV and 領収書. */
export const salesRoutes = new Hono<AppEnv>()
  .route('/', summaryRoutes)
  .route('/', licenseCountRoutes)
  .route('/', saleRoutes)
  .route('/', exportRoutes)
  .route('/', receiptRoutes)
  .route('/', quotationRoutes)
  .route('/', issuedDocumentRoutes)
  .route('/', refundRoutes)
  .route('/', saleNoteRoutes)
  .route('/', resendRoutes);
