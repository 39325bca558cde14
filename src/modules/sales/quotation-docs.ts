import { operation, pathIds } from '../../http/openapi.ts';
import { QuotationQuery } from './schemas.ts';

export const quotationDocs = {
  pdf: operation('get', {
    summary: '御見積書の PDF（ライセンス1点、税込価格、有効期限30日）',
    tags: ['見積書'],
    access: 'member',
    path: { id: pathIds.number },
    query: QuotationQuery,
    answers: {
      200: { media: 'application/pdf', description: '御見積書の PDF', headers: { 'X-Quotation-Number': '見積番号' } },
    },
    errors: [429],
  }),
};
