import { Hono } from 'hono';
import type { AppEnv } from '../../http/context.ts';
import { AppError } from '../../http/errors.ts';
import { permit, signedInUser } from '../../http/guards.ts';
import { queryInput } from '../../http/validate.ts';
import { contentDisposition } from '../../lib/csv.ts';
import { DocumentListQuery, issuedDocumentDocs } from './issued-document-docs.ts';
import { findQuotation, listInvoices, listQuotations, recordDocumentRead } from './issued-documents.ts';
import { renderQuotationPdf } from './quotation-pdf.ts';

const QUOTATION_NOT_FOUND = 'この見積番号の御見積書は見つかりませんでした。';

/**
 * 見積書・請求書 in the back office: the lists, and a recorded 御見積書 drawn again from what was kept
 * (a 御請求書 also needs the order's transfer account: src/host/admin-invoices.ts).
 */
export const issuedDocumentRoutes = new Hono<AppEnv>()
  .get('/quotations', issuedDocumentDocs.quotations, permit('sales:read'), async (c) => {
    const query = queryInput(c, DocumentListQuery);
    return c.json(await listQuotations(c.var.deps.orm, query.q, query.page, query.per_page, c.var.deps.changes));
  })
  .get('/invoices', issuedDocumentDocs.invoices, permit('sales:read'), async (c) => {
    const query = queryInput(c, DocumentListQuery);
    return c.json(await listInvoices(c.var.deps.orm, query.q, query.page, query.per_page, c.var.deps.changes));
  })
  .get('/quotations/:number{[0-9A-Za-z-]+}/pdf', issuedDocumentDocs.quotationPdf, permit('sales:read'), async (c) => {
    const { orm } = c.var.deps;
    const quotation = await findQuotation(orm, c.req.param('number').toUpperCase());
    if (!quotation) throw new AppError('not_found', QUOTATION_NOT_FOUND);
    const number = quotation.quotation_number;
    // Older quotations kept no 宛名: the line is left blank rather than guessed.
    const pdf = await renderQuotationPdf({
      quotationNumber: number,
      addressee: quotation.addressee ?? '',
      licenseName: quotation.license_name,
      amount: quotation.amount,
      issuedAt: new Date(quotation.issued_at),
      expiresAt: new Date(quotation.expires_at),
    });
    await recordDocumentRead(orm, signedInUser(c), { kind: 'quotation', number, addressee: quotation.addressee });
    return c.body(new Uint8Array(pdf), 200, {
      'Content-Type': 'application/pdf',
      'Content-Disposition': contentDisposition({ utf8: `御見積書_${number}.pdf`, ascii: `quotation_${number}.pdf` }),
    });
  });
