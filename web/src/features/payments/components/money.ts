/** An amount as Stripe or the shop holds it: yen as ¥, another currency by its code. */
export const money = (amount: number | null, currency: string | null) =>
  amount === null ? '—' : currency === 'jpy' ? `¥${amount.toLocaleString('ja-JP')}` : `${amount} ${currency ?? ''}`;
