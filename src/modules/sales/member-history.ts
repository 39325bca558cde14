import type { Orm } from '../../db/orm.ts';
import { Sale, SaleStatus } from './entities/sale.entity.ts';
import { type SaleView, saleDto } from './record-sale.ts';

/**
 * How a member reads a sale's state: what it means for them, never the back office's 出力待ち/処理中
 * (a sale exists only once paid, so every state starts from お支払い済み).
 */
const MEMBER_SALE_STATE = {
  paid: 'お支払い済み（登録準備中）',
  in_progress: '登録手続き中',
  registered: '登録完了',
  partially_refunded: '一部返金',
  refunded: '返金済み',
} as const;
type MemberSaleState = keyof typeof MEMBER_SALE_STATE;

function memberSaleState(sale: Pick<SaleView, 'status' | 'refundedAt' | 'refundedAmount'>): MemberSaleState {
  if (sale.refundedAt) return 'refunded';
  if (sale.refundedAmount) return 'partially_refunded';
  if (sale.status === SaleStatus.Registered) return 'registered';
  return sale.status === SaleStatus.InProgress ? 'in_progress' : 'paid';
}

const memberSale = (sale: Sale) => {
  const state = memberSaleState(sale);
  return { ...saleDto(sale), member_state: state, member_state_label: MEMBER_SALE_STATE[state] };
};
export type MemberSale = ReturnType<typeof memberSale>;

/** A member's purchase history, newest first, with the member-facing state of each sale. */
export async function salesOfUser(orm: Orm, userId: string) {
  const sales = await orm.em.fork().find(Sale, { userId }, { orderBy: { paidAt: 'desc', id: 'desc' } });
  return sales.map(memberSale);
}

/** The same sales by the checkout each was made from (the order page and the history's orders). */
export async function memberSalesByCheckout(orm: Orm, userId: string, checkoutId?: string): Promise<Map<string, MemberSale>> {
  const sales = await orm.em.fork().find(Sale, checkoutId ? { userId, checkoutSessionId: checkoutId } : { userId });
  return new Map(sales.map((sale) => [sale.checkoutSessionId, memberSale(sale)]));
}
