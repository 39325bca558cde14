import { Hono } from 'hono';
import type { AppEnv, AppModule } from '../http/context.ts';
import { AppError } from '../http/errors.ts';
import { permit, signedInUser } from '../http/guards.ts';
import { contentDisposition } from '../lib/csv.ts';
import { invoiceOrderFacts } from '../modules/checkout/index.ts';
import { findInvoice, issuedDocumentDocs, recordDocumentRead, renderInvoicePdf } from '../modules/sales/index.ts';
import { invoiceBank } from './member-orders.ts';

const INVOICE_NOT_FOUND = 'この請求書番号の御請求書は見つかりませんでした。';
const NO_ACCOUNT = 'ご注文のお振込先が見つからないため、この御請求書は作成し直せません。';

/**
 * GET /api/invoices/{number}/pdf: an issued 御請求書 drawn again for an administrator, composed from
 * the sales module (the invoice as recorded: number, 宛名, amount, dates) and the checkout module (the
 * order's time and transfer account) — neither reads the other's tables. Audited, never counted.
 */
export const adminInvoices = {
  name: 'admin-invoices',
  api: new Hono<AppEnv>().get(
    '/invoices/:number{[0-9A-Za-z-]+}/pdf',
    issuedDocumentDocs.invoicePdf,
    permit('sales:read'),
    async (c) => {
      const { orm } = c.var.deps;
      const invoice = await findInvoice(orm, c.req.param('number').toUpperCase());
      if (!invoice) throw new AppError('not_found', INVOICE_NOT_FOUND);
      const order = await invoiceOrderFacts(orm, invoice.order_number);
      if (!order?.bank) throw new AppError('conflict', NO_ACCOUNT);
      const number = invoice.invoice_number;
      const pdf = await renderInvoicePdf({
        invoiceNumber: number,
        orderNumber: invoice.order_number,
        addressee: invoice.addressee,
        licenseName: invoice.license_name,
        amount: invoice.amount,
        orderedAt: order.orderedAt,
        dueAt: new Date(invoice.due_at),
        issuedAt: new Date(invoice.issued_at),
        bank: invoiceBank(order.bank),
      });
      await recordDocumentRead(orm, signedInUser(c), { kind: 'invoice', number, addressee: invoice.addressee });
      return c.body(new Uint8Array(pdf), 200, {
        'Content-Type': 'application/pdf',
        'Content-Disposition': contentDisposition({ utf8: `御請求書_${number}.pdf`, ascii: `invoice_${number}.pdf` }),
      });
    },
  ),
  entities: [],
} satisfies AppModule;
