import * as v from 'valibot';
import { operation } from '../../http/openapi.ts';
import { SummaryEncodingQuery, SummaryQuery } from './summary.ts';

const SALES = ['売上'];

/** The OpenAPI operations of the back office's order tools: 受注CSV, notes, the purchase mail sent again. */
export const backOfficeDocs = {
  ordersCsv: operation('get', {
    summary: '受注CSV（期間内に支払われた売上と、期間内に返金した過去の注文を1行ずつ）',
    tags: SALES,
    access: 'admin',
    permission: 'exports:download',
    query: v.intersect([SummaryQuery, SummaryEncodingQuery]),
    answers: { 200: { media: 'text/csv', description: 'CSV ファイル' } },
  }),
};
