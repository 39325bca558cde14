import useSWR from 'swr';
import type { Answer } from '../../lib/api';

type KonbiniPage = Answer<'/api/payments/pending-konbini'>;
export type KonbiniListState = KonbiniPage['state'];
export type KonbiniPayment = KonbiniPage['konbini_payments'][number];

/** GET /api/payments/pending-konbini: konbini payments awaited, or lapsed unpaid. */
export const usePendingKonbini = (state: KonbiniListState, page: number) =>
  useSWR<KonbiniPage>(`/api/payments/pending-konbini?${new URLSearchParams({ state, page: String(page) })}`);
