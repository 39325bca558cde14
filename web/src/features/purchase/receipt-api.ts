import { ApiError, networkError } from '../../lib/api';

export type AddresseeKind = 'name' | 'organisation' | 'custom';
export type Honorific = '様' | '御中';

export interface ReceiptState {
  sale_id: number;
  receipt_number: string;
  license_name: string;
  issued: boolean;
  issue_count: number;
  addressee_kind: AddresseeKind | null;
  addressee: string | null;
  addressee_text: string | null;
  honorific: Honorific | null;
  proviso: string;
  default_proviso: string;
  options: { value: Exclude<AddresseeKind, 'custom'>; label: string }[];
  honorifics: Honorific[];
  konbini: boolean;
  copy_only: boolean;
}

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
