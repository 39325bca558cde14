import type Stripe from 'stripe';
import { yen } from '../../lib/yen.ts';
import type { CheckoutSession } from './entities/checkout-session.entity.ts';

type BankTransferAccount = NonNullable<CheckoutSession['bankTransfer']>;

const ACCOUNT_TYPE_LABEL: Record<string, string> = { futsu: '普通', toza: '当座' };

/** The virtual account of a completed, unpaid customer_balance payment (Stripe's zengin address). */
export function bankTransferOf(pi: Stripe.PaymentIntent): BankTransferAccount | null {
  const instructions =
    pi.next_action?.type === 'display_bank_transfer_instructions' ? pi.next_action.display_bank_transfer_instructions : undefined;
  const zengin = instructions?.financial_addresses?.find((address) => address.zengin)?.zengin;
  if (!instructions || !zengin) return null;
  return {
    bankName: zengin.bank_name ?? '',
    bankCode: zengin.bank_code ?? '',
    branchName: zengin.branch_name ?? '',
    branchCode: zengin.branch_code ?? '',
    accountType: zengin.account_type ?? '',
    accountNumber: zengin.account_number ?? '',
    accountHolderName: zengin.account_holder_name ?? '',
    amountRemaining: instructions.amount_remaining ?? pi.amount,
    reference: instructions.reference ?? null,
    hostedInstructionsUrl: instructions.hosted_instructions_url ?? null,
  };
}

/** The bank details as the member reads them (API, pages and mails). */
export function bankTransferView(checkout: Pick<CheckoutSession, 'bankTransfer' | 'bankTransferExpiresAt' | 'amount'>) {
  const account = checkout.bankTransfer;
  if (!account || !checkout.bankTransferExpiresAt) return null;
  return {
    bank_name: account.bankName,
    bank_code: account.bankCode,
    branch_name: account.branchName,
    branch_code: account.branchCode,
    account_type: account.accountType,
    account_type_label: ACCOUNT_TYPE_LABEL[account.accountType] ?? account.accountType,
    account_number: account.accountNumber,
    account_holder_name: account.accountHolderName,
    amount: account.amountRemaining ?? checkout.amount,
    reference: account.reference,
    instructions_url: account.hostedInstructionsUrl,
    expires_at: new Date(checkout.bankTransferExpiresAt).toISOString(),
  };
}
export type BankTransferView = NonNullable<ReturnType<typeof bankTransferView>>;

/** The lines of a mail that tell where and how much to transfer. */
export function bankTransferLines(view: BankTransferView, deadline: string): string[] {
  return [
    `お振込金額：${yen(view.amount)}（税込）`,
    `お振込期限：${deadline}（日本時間）`,
    `銀行：${view.bank_name}（${view.bank_code}）`,
    `支店：${view.branch_name}（${view.branch_code}）`,
    `口座種別：${view.account_type_label}`,
    `口座番号：${view.account_number}`,
    `口座名義：${view.account_holder_name}`,
  ];
}
