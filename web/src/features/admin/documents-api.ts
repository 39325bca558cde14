import useSWR from 'swr';
import { type Answer, ApiError, networkError, type Schema } from '../../lib/api';

export type DocumentKind = 'quotation' | 'invoice';
export type Quotation = Schema<'Quotation'>;
export type Invoice = Schema<'Invoice'>;
type QuotationPage = Answer<'/api/quotations'>;
type InvoicePage = Answer<'/api/invoices'>;

const query = (q: string, page: number) => new URLSearchParams({ ...(q ? { q } : {}), page: String(page) }).toString();

/** GET /api/quotations: 御見積書 issued, newest first. */
export const useQuotations = (q: string, page: number) => useSWR<QuotationPage>(`/api/quotations?${query(q, page)}`);

/** GET /api/invoices: 御請求書 issued, newest first. */
export const useInvoices = (q: string, page: number) => useSWR<InvoicePage>(`/api/invoices?${query(q, page)}`);

const PATHS: Record<DocumentKind, string> = { quotation: '/api/quotations', invoice: '/api/invoices' };
const NAMES: Record<DocumentKind, string> = { quotation: '御見積書', invoice: '御請求書' };

/** The issued PDF again (audited on the server), saved under the name the member's download had. */
export async function downloadDocument(kind: DocumentKind, number: string) {
  let res: Response;
  try {
    res = await fetch(`${PATHS[kind]}/${encodeURIComponent(number)}/pdf`, { credentials: 'include', cache: 'no-store' });
  } catch {
    throw networkError();
  }
  if (!res.ok) {
    const body = (await res.json().catch(() => undefined)) as { message?: string } | undefined;
    throw new ApiError(res.status, body?.message ?? `${NAMES[kind]}を表示できませんでした。時間をおいて再度お試しください。`);
  }
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = `${NAMES[kind]}_${number}.pdf`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
