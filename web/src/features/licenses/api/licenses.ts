import useSWR from 'swr';

interface LicensePicture {
  filename: string;
  url: string;
  thumbnail_url: string;
  width: number;
  height: number;
  original_name: string | null;
}

export interface License {
  id: number;
  name: string;
  description: string;
  price: number;
  published: boolean;
  /** The display order set by the administrators (the catalogue's order, smallest first). */
  sort_order: number;
  created_at: string;
  updated_at: string;
  picture_directory: string;
  pictures_pathes: string[];
  pictures: LicensePicture[];
  /** Administrators only: false once anyone started to buy it (DELETE then answers 409). */
  deletable?: boolean;
}

export interface LicensePage {
  licenses: License[];
  total: number;
  page: number;
  per_page: number;
}

/** `position`: the administrators' display order, which the catalogue follows. */
export function useLicenses(page: number, perPage = 20, sort = 'position') {
  return useSWR<LicensePage>(`/api/licenses?page=${page}&per_page=${perPage}&sort=${encodeURIComponent(sort)}`);
}

export function useLicense(id: string | undefined) {
  return useSWR<{ license: License }>(id ? `/api/licenses/${id}` : null);
}

/** What the signed-in member holds or is paying for, per licence (GET /api/me/holdings). */
export interface Holding {
  license_id: number;
  state: 'purchased' | 'payment_pending';
  sale_id: number | null;
  order_number: string | null;
  purchased_at: string | null;
  voucher_url: string | null;
  expires_at: string | null;
}

/**
 * The member's holdings, fetched apart from the catalogue (which is cached and shared by every
 * member) and only for a signed-in member: 購入済み / コンビニ支払い待ち instead of the buy button.
 */
export function useHoldings(userId: string | undefined) {
  const { data, error, isLoading } = useSWR<{ holdings: Holding[] }>(userId ? '/api/me/holdings' : null);
  const byLicense = new Map((data?.holdings ?? []).map((holding) => [holding.license_id, holding]));
  return { byLicense, error, isLoading: Boolean(userId) && isLoading };
}

/** Sales per licence for the administrators' list (standing and refunded; licences without sales are absent). */
export function useSalesCounts() {
  const { data, error, isLoading } = useSWR<{ counts: { license_id: number; count: number; refunded_count: number }[] }>(
    '/api/sales/license-counts',
  );
  const byLicense = new Map((data?.counts ?? []).map((row) => [row.license_id, row]));
  return { byLicense, error, isLoading };
}
