import { Hono } from 'hono';
import * as v from 'valibot';
import type { Em } from '../db/orm.ts';
import type { AppEnv, AppModule } from '../http/context.ts';
import { AppError } from '../http/errors.ts';
import { permitSelfOr } from '../http/guards.ts';
import { operation, pathIds, timestamp } from '../http/openapi.ts';
import { queryInput } from '../http/validate.ts';
import { contentDisposition } from '../lib/csv.ts';
import { findBuyer } from '../modules/accounts/index.ts';
import { BankTransferAnswer, KonbiniVoucherAnswer, type MemberOrder, memberOrderOf } from '../modules/checkout/index.ts';
import {
  AddresseeInput,
  includedTax,
  issueInvoice,
  type MemberSale,
  memberSalesByCheckout,
  parseOrderNumber,
  renderInvoicePdf,
} from '../modules/sales/index.ts';
import { receiptIssuer } from '../site-settings.ts';

const ORDER_NOT_FOUND = 'ご注文が見つかりませんでした。';
const NOT_AWAITING_TRANSFER = '御請求書は、銀行振込のお支払いをお待ちしているご注文にだけ発行できます。';
const TRANSFER_NOTE =
  'お振込金額が不足・超過した場合は、決済代行会社の Stripe がお客さま専用口座の残高として管理し、精算します（不足分の追加のお振込み、または超過分の返金）。';

export const OrderAnswer = v.object({
  order_number: v.nullable(v.string()),
  license_id: v.number(),
  license_name: v.string(),
  amount: v.number(),
  tax_rate: v.number(),
  tax_amount: v.number(),
  currency: v.string(),
  ordered_at: timestamp(),
  payment_method: v.picklist(['card', 'konbini', 'bank_transfer']),
  payment_method_label: v.string(),
  state: v.picklist(['paid', 'awaiting_payment', 'expired', 'refunded', 'refund_due']),
  state_label: v.string(),
  expires_at: v.nullable(timestamp()),
  voucher: v.nullable(KonbiniVoucherAnswer),
  bank_transfer: v.nullable(BankTransferAnswer),
  transfer_note: v.nullable(v.string()),
  sale_id: v.nullable(v.number()),
  paid_at: v.nullable(timestamp()),
  member_state_label: v.nullable(v.string()),
  refunded_at: v.nullable(timestamp()),
  refund_requested_at: v.nullable(timestamp()),
  /** Refunded so far (partial refunds add up), 0 when none. */
  refunded_amount: v.number(),
});

/** One order as the member reads it: the checkout's facts, and the sale's once it is paid. */
export function orderAnswer(order: MemberOrder, sale: MemberSale | undefined): v.InferOutput<typeof OrderAnswer> {
  const refunded = Boolean(sale?.refunded_at);
  return {
    order_number: order.order_number,
    license_id: order.license_id,
    license_name: sale?.license_name ?? order.license_name,
    amount: order.amount,
    tax_rate: receiptIssuer.taxRatePercent,
    tax_amount: includedTax(order.amount),
    currency: order.currency,
    ordered_at: order.ordered_at,
    payment_method: order.payment_method,
    payment_method_label: order.payment_method_label,
    state: refunded ? 'refunded' : order.state,
    state_label: refunded ? '返金済み' : (sale?.member_state_label ?? order.state_label),
    expires_at: order.expires_at,
    voucher: order.voucher,
    bank_transfer: order.bank_transfer,
    transfer_note: order.payment_method === 'bank_transfer' ? TRANSFER_NOTE : null,
    sale_id: sale?.id ?? null,
    paid_at: sale?.paid_at ?? null,
    member_state_label: sale?.member_state_label ?? null,
    refunded_at: sale?.refunded_at ?? null,
    refund_requested_at: sale?.refund_requested_at ?? null,
    refunded_amount: sale?.refunded_amount ?? 0,
  };
}

const orderPath = { id: pathIds.uuid, order_number: v.pipe(v.string(), v.maxLength(40)) };
const orderDoc = operation('get', {
  summary: '会員のご注文（支払い方法、状況、払込票・お振込先、領収書、返金）',
  tags: ['購入'],
  access: 'self-or-admin',
  permission: 'sales:read',
  path: orderPath,
  answers: { 200: v.object({ order: OrderAnswer }) },
  errors: [404],
});
const invoiceDoc = operation('get', {
  summary: '御請求書の PDF（銀行振込のお支払い待ちのご注文）',
  tags: ['購入'],
  access: 'self-or-admin',
  permission: 'sales:read',
  path: orderPath,
  query: AddresseeInput,
  answers: { 200: { media: 'application/pdf', description: '御請求書の PDF', headers: { 'X-Invoice-Number': '請求書番号' } } },
  errors: [404, 409],
});

/** The transfer account as a 御請求書 prints it. */
export const invoiceBank = (bank: NonNullable<MemberOrder['bank_transfer']>) => ({
  bankName: bank.bank_name,
  bankCode: bank.bank_code,
  branchName: bank.branch_name,
  branchCode: bank.branch_code,
  accountTypeLabel: bank.account_type_label,
  accountNumber: bank.account_number,
  accountHolderName: bank.account_holder_name,
});

async function findOrder(c: { var: AppEnv['Variables']; req: { param: (name: string) => string } }) {
  const { orm } = c.var.deps;
  const userId = c.req.param('id');
  const orderNumber = parseOrderNumber(c.req.param('order_number'));
  const order = orderNumber ? await memberOrderOf(orm, userId, orderNumber) : null;
  if (!order) throw new AppError('not_found', ORDER_NOT_FOUND);
  const sales = await memberSalesByCheckout(orm, userId, order.checkout_id);
  return { userId, order, sale: sales.get(order.checkout_id) };
}

/**
 * GET /api/users/{id}/orders/{order_number}: one order, composed from the checkout module (how and
 * whether it is paid) and the sales module (the sale, its refund) — neither reads the other's tables.
 * …/invoice: 御請求書 for an order awaiting its bank transfer, addressed as the receipt is.
 */
export const memberOrders = {
  name: 'member-orders',
  api: new Hono<AppEnv>()
    .get('/users/:id{[0-9a-fA-F-]+}/orders/:order_number', orderDoc, permitSelfOr('sales:read'), async (c) => {
      const { order, sale } = await findOrder(c);
      return c.json({ order: orderAnswer(order, sale) });
    })
    .get('/users/:id{[0-9a-fA-F-]+}/orders/:order_number/invoice', invoiceDoc, permitSelfOr('sales:read'), async (c) => {
      const choice = queryInput(c, AddresseeInput);
      const { userId, order } = await findOrder(c);
      const bank = order.bank_transfer;
      if (order.state !== 'awaiting_payment' || !bank || !order.order_number) {
        throw new AppError('conflict', NOT_AWAITING_TRANSFER);
      }
      const buyer = await findBuyer(c.var.deps.orm.em.fork(), userId);
      const addressee =
        choice.addressee === 'custom'
          ? `${choice.addressee_text ?? ''} ${choice.honorific ?? '様'}`
          : choice.addressee === 'organisation' && buyer?.affiliationName
            ? `${buyer.affiliationName} 御中`
            : `${`${buyer?.lastName ?? ''} ${buyer?.firstName ?? ''}`.trim()} 様`;
      // Recorded first (the same order and 宛名 again is the same invoice), drawn after the commit.
      const { invoiceNumber: number, issuedAt } = await issueInvoice(c.var.deps.orm.em.fork() as Em, {
        orderNumber: order.order_number,
        userId,
        licenseName: order.license_name,
        amount: order.amount,
        addressee,
        dueAt: new Date(bank.expires_at),
      });
      const pdf = await renderInvoicePdf({
        invoiceNumber: number,
        orderNumber: order.order_number,
        addressee,
        licenseName: order.license_name,
        amount: order.amount,
        orderedAt: new Date(order.ordered_at),
        dueAt: new Date(bank.expires_at),
        issuedAt,
        bank: invoiceBank(bank),
      });
      c.var.log.info('invoice issued', { invoiceNumber: number, orderNumber: order.order_number, by: userId });
      return c.body(new Uint8Array(pdf), 200, {
        'Content-Type': 'application/pdf',
        'Content-Disposition': contentDisposition({ utf8: `御請求書_${number}.pdf`, ascii: `invoice_${number}.pdf` }),
        'X-Invoice-Number': number,
      });
    }),
  entities: [],
} satisfies AppModule;
