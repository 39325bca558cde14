// The sales module's public surface: sales, their fulfilment statuses and the training-system CSV.
import type { AppModule } from '../../http/context.ts';
import { Export, ExportSale } from './entities/export.entity.ts';
import { SaleNote } from './entities/note.entity.ts';
import { SaleReceipt } from './entities/receipt.entity.ts';
import { SaleRefund } from './entities/refund.entity.ts';
import { Sale } from './entities/sale.entity.ts';
import { SaleStatusMove, SaleStatusMoveSale } from './entities/status-move.entity.ts';
import { onExportRequested } from './export/build.ts';
import {
  onCheckoutPaid,
  onPaymentRefunded,
  onPurchaseMailResendRequested,
  onRegistrationMailsDue,
  onSalePaid,
  onSaleRefunded,
  onSaleStatusChanged,
  onUserDeleted,
} from './handlers/sale-handlers.ts';
import { onReceiptCopyRequested } from './receipt-copy.ts';
import { salesRoutes } from './routes.ts';

export { saleAuditLabels } from './audit-labels.ts';
export { salesDashboard } from './dashboard.ts';
export { saleDetail } from './detail.ts';
export { SaleStatus } from './entities/sale.entity.ts';
// The export's encoder, for the property test that pins its bytes to csv-stringify's (tests/unit/export-encoding.test.ts).
export { csvEncoder, EXPORT_HEADER, type ExportEncoding } from './export/csv.ts';
export { EXPORT_INTERRUPTED, markExportFailed, sweepExports } from './export/sweep.ts';
export { exportFigures } from './export-figures.ts';
export { renderInvoicePdf } from './invoice-pdf.ts';
export { issueInvoice } from './invoice-record.ts';
export { issuedDocumentDocs } from './issued-document-docs.ts';
export { findInvoice, recordDocumentRead } from './issued-documents.ts';
export { type MemberSale, memberSalesByCheckout, salesOfUser } from './member-history.ts';
export { newOrderNumber, ORDER_ALPHABET, ORDER_NUMBER_PATTERN } from './order-number.ts';
export {
  type SalePayment,
  salePaymentsOfIds,
  salePaymentsOfPaymentIntents,
  salePaymentsOfSessions,
  salePaymentsSince,
} from './payments.ts';
export { purchaseFiguresOfSale } from './purchase-figures.ts';
export { includedTax } from './receipt-pdf.ts';
export { holdingsOf, saleOfCheckout, saleOfOrderNumber, seatsSold } from './record-sale.ts';
export { SaleAnswer, SaleDetailAnswer } from './responses.ts';
export { parseOrderNumber } from './sales-filter.ts';
export { AddresseeInput } from './schemas.ts';

export const sales = {
  name: 'sales',
  api: salesRoutes,
  entities: [Sale, Export, ExportSale, SaleReceipt, SaleStatusMove, SaleStatusMoveSale, SaleRefund, SaleNote],
  handlers: {
    CheckoutPaid: onCheckoutPaid,
    PaymentRefunded: onPaymentRefunded,
    SalePaid: onSalePaid,
    SaleRefunded: onSaleRefunded,
    PurchaseMailResendRequested: onPurchaseMailResendRequested,
    SaleStatusChanged: onSaleStatusChanged,
    RegistrationMailsDue: onRegistrationMailsDue,
    ExportRequested: onExportRequested,
    UserDeleted: onUserDeleted,
    ReceiptCopyRequested: onReceiptCopyRequested,
  },
} satisfies AppModule;
