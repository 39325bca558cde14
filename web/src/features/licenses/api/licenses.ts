import useSWR from 'swr';
import { type Answer, api, type RequestBody, type Schema } from '../../../lib/api';

export type License = Schema<'License'>;
export type LicensePage = Answer<'/api/licenses'>;

/** `position`: the administrators' display order, which the catalogue follows. */
export function useLicenses(page: number, perPage = 20, sort = 'position') {
  return useSWR<LicensePage>(`/api/licenses?page=${page}&per_page=${perPage}&sort=${encodeURIComponent(sort)}`);
}

export function useLicense(id: string | undefined) {
  return useSWR<Answer<'/api/licenses/{id}'>>(id ? `/api/licenses/${id}` : null);
}

/** What the signed-in member holds or is paying for, per licence (GET /api/me/holdings). */
export type Holding = Answer<'/api/me/holdings'>['holdings'][number];

/**
 * The member's holdings, fetched apart from the catalogue (which is cached and shared by every
 * member) and only for a signed-in member: 購入済み / コンビニ支払い待ち instead of the buy button.
 */
export function useHoldings(userId: string | undefined) {
  const { data, error, isLoading } = useSWR<Answer<'/api/me/holdings'>>(userId ? '/api/me/holdings' : null);
  const byLicense = new Map((data?.holdings ?? []).map((holding) => [holding.license_id, holding]));
  return { byLicense, error, isLoading: Boolean(userId) && isLoading };
}

/** Sales per licence for the administrators' list (standing and refunded; licences without sales are absent). */
export function useSalesCounts() {
  const { data, error, isLoading } = useSWR<Answer<'/api/sales/license-counts'>>('/api/sales/license-counts');
  const byLicense = new Map((data?.counts ?? []).map((row) => [row.license_id, row]));
  return { byLicense, error, isLoading };
}

/** 上へ・下へ: the licences' ids in their new order. */
export const moveLicense = (id: number, body: RequestBody<'/api/licenses/{id}/move', 'post'>) =>
  api<Answer<'/api/licenses/{id}/move', 'post'>>(`/api/licenses/${id}/move`, { method: 'POST', body });
export const setPublished = (id: number, body: RequestBody<'/api/licenses/{id}/published', 'put'>) =>
  api<Answer<'/api/licenses/{id}/published', 'put'>>(`/api/licenses/${id}/published`, { method: 'PUT', body });
export const deleteLicense = (id: number) =>
  api<Answer<'/api/licenses/{id}', 'delete'>>(`/api/licenses/${id}`, { method: 'DELETE' });
/** The licence as stored now (no cached copy). */
export const fetchLicense = (id: string) => api<Answer<'/api/licenses/{id}'>>(`/api/licenses/${id}`);
/** Saves the form (multipart: the pictures with it): a new licence, or changes to `id`. */
export const saveLicense = (id: string | undefined, form: FormData) =>
  api<Answer<'/api/licenses/create', 'post'>>(id ? `/api/licenses/${id}` : '/api/licenses/create', {
    method: 'POST',
    body: form,
  });
/** Checks the form as saving would, saving nothing (422 with the fields, 409 when overtaken). */
export const validateLicense = (id: string | undefined, form: FormData) =>
  api<void>(id ? `/api/licenses/${id}/validate` : '/api/licenses/create/validate', { method: 'POST', body: form });
