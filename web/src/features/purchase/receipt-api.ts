import useSWR from 'swr';
import { type Answer, ApiError, api, networkError, type RequestBody } from '../../lib/api';

/** 領収書: what has been issued and what the member may choose. */
export type ReceiptState = Answer<'/api/sales/{id}/receipt-addressee'>;
export type AddresseeKind = NonNullable<ReceiptState['addressee_kind']>;
export type Honorific = ReceiptState['honorifics'][number];

export const useReceiptState = (saleId: number) => useSWR<ReceiptState>(`/api/sales/${saleId}/receipt-addressee`);

/** Chooses the addressee (and the proviso) before the first issue. */
export const chooseAddressee = (saleId: number, body: RequestBody<'/api/sales/{id}/receipt-addressee', 'put'>) =>
  api<Answer<'/api/sales/{id}/receipt-addressee', 'put'>>(`/api/sales/${saleId}/receipt-addressee`, { method: 'PUT', body });

/**
 * Fetches the PDF and saves it under its Japanese name. Fetched, not navigated to: a refusal (refunded,
 * signed out) is shown beside the button instead of replacing the page with its JSON.
 */
export async function downloadReceipt(saleId: number, fileName: string, copy = false) {
  let res: Response;
  try {
    res = await fetch(`/api/sales/${saleId}/receipt${copy ? '?copy=1' : ''}`, { credentials: 'include', cache: 'no-store' });
  } catch {
    throw networkError();
  }
  if (!res.ok) {
    const body = (await res.json().catch(() => undefined)) as { message?: string } | undefined;
    throw new ApiError(res.status, body?.message ?? '領収書を表示できませんでした。時間をおいて再度お試しください。');
  }
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export const receiptNumberOf = (saleId: number) => `R-${String(saleId).padStart(8, '0')}`;
