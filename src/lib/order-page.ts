/** The member's order page (`/users/{id}/orders/{order_number}`), linked from every order mail. */
const orderPageUrl = (appUrl: string, userId: string, orderNumber: string) =>
  `${appUrl}/users/${encodeURIComponent(userId)}/orders/${encodeURIComponent(orderNumber)}`;

/** The lines every order mail carries: the number to quote, and where the order can be read again. */
export function orderMailLines(appUrl: string, checkout: { userId?: string | null; orderNumber?: string | null }): string[] {
  if (!checkout.orderNumber) return [];
  return [
    `ご注文番号：${checkout.orderNumber}`,
    ...(checkout.userId ? [`ご注文の内容とお支払い状況：${orderPageUrl(appUrl, checkout.userId, checkout.orderNumber)}`] : []),
  ];
}
