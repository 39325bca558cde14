import { countAll, db as kysely, now } from '../../db/kysely.ts';
import type { Em } from '../../db/orm.ts';
import { AppError } from '../../http/errors.ts';

/** What a 御請求書 says that is recorded with its number (the bank details stay on the order). */
export interface InvoiceToIssue {
  orderNumber: string;
  userId: string;
  licenseName: string;
  /** Whole yen, tax included. */
  amount: number;
  /** With its honorific, as printed. */
  addressee: string;
  dueAt: Date;
}

/** The first invoice of an order is `INV-<order number>`, so a transfer and its invoice match; another 宛名 adds `-2`, `-3`… */
const invoiceNumber = (orderNumber: string, nth = 1) => `INV-${orderNumber}${nth > 1 ? `-${nth}` : ''}`;

/**
 * Records a 御請求書 before it is drawn: a new one gets the order's next number; the same order and
 * 宛名 again is the same invoice (its number and issue date kept, the download counted). Two first
 * downloads at once meet on the unique number or (order, 宛名) and the loser reads again.
 */
export async function issueInvoice(em: Em, invoice: InvoiceToIssue): Promise<{ invoiceNumber: string; issuedAt: Date }> {
  const db = kysely(em);
  for (let attempt = 0; attempt < 5; attempt++) {
    const again = await db
      .updateTable('invoices')
      .set((eb) => ({ downloads: eb('downloads', '+', 1), last_downloaded_at: now() }))
      .where('order_number', '=', invoice.orderNumber)
      .where('addressee', '=', invoice.addressee)
      .returning(['invoice_number', 'issued_at'])
      .executeTakeFirst();
    if (again) return { invoiceNumber: again.invoice_number, issuedAt: new Date(again.issued_at) };
    const issued = await db
      .selectFrom('invoices')
      .select((eb) => countAll(eb).as('n'))
      .where('order_number', '=', invoice.orderNumber)
      .executeTakeFirstOrThrow();
    const issuedAt = new Date();
    const number = invoiceNumber(invoice.orderNumber, Number(issued.n) + 1);
    const recorded = await db
      .insertInto('invoices')
      .values({
        invoice_number: number,
        order_number: invoice.orderNumber,
        user_id: invoice.userId,
        license_name: invoice.licenseName,
        amount: invoice.amount,
        addressee: invoice.addressee,
        due_at: invoice.dueAt.toISOString(),
        issued_at: issuedAt.toISOString(),
        last_downloaded_at: issuedAt.toISOString(),
      })
      .onConflict((oc) => oc.doNothing())
      .returning('invoice_number')
      .executeTakeFirst();
    if (recorded) return { invoiceNumber: number, issuedAt };
  }
  throw new AppError('unavailable', '御請求書を発行できませんでした。時間をおいて再度お試しください。');
}
