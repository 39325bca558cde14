import { Readable } from 'node:stream';
import { Hono } from 'hono';
import type { AppEnv } from '../../http/context.ts';
import { permit, signedInUser } from '../../http/guards.ts';
import { parseInputs, queryInput } from '../../http/validate.ts';
import { backOfficeDocs } from './back-office-docs.ts';
import { openOrderCsv } from './order-csv.ts';
import { salesDocs } from './responses.ts';
import { periodOf, SummaryEncodingQuery, SummaryQuery, salesSummary, summaryDownload } from './summary.ts';

/** 売上集計: the totals of a period (Japan days), the same as a CSV file, and 受注CSV. Mounted before `/sales/:id`. */
export const summaryRoutes = new Hono<AppEnv>()
  .get('/sales/summary', salesDocs.summary, permit('sales:read'), async (c) => {
    const query = queryInput(c, SummaryQuery);
    return c.json({ summary: await salesSummary(c.var.deps.orm, periodOf(query)) });
  })
  .get('/sales/summary.csv', salesDocs.summaryCsv, permit('sales:read'), async (c) => {
    const query = parseInputs(c.req.query(), SummaryQuery, SummaryEncodingQuery);
    const user = signedInUser(c);
    const file = await summaryDownload(c.var.deps.orm, { id: user.id, email: user.email }, periodOf(query), query.encoding);
    c.header('Content-Type', file.contentType);
    c.header('Content-Disposition', file.disposition);
    return c.body(new Uint8Array(file.body));
  })
  .get('/sales/orders.csv', backOfficeDocs.ordersCsv, permit('exports:download'), async (c) => {
    const query = parseInputs(c.req.query(), SummaryQuery, SummaryEncodingQuery);
    const user = signedInUser(c);
    const actor = { id: user.id, email: user.email };
    const file = await openOrderCsv(c.var.deps.orm, actor, periodOf(query), query.encoding, c.var.log);
    c.header('Content-Type', file.contentType);
    c.header('Content-Disposition', file.disposition);
    // Bytes, not objects: the stream holds about one batch ahead of the client, however many rows.
    return c.body(Readable.toWeb(Readable.from(file.chunks, { objectMode: false })) as ReadableStream);
  });
