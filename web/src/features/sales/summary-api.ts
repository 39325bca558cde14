import useSWR from 'swr';

/** One licence's line of 売上集計 (GET /api/sales/summary). */
interface LicenseTotals {
  license_id: number;
  name: string;
  count: number;
  amount: number;
  tax: number;
  refunded_count: number;
  refunded_amount: number;
}

/**
 * 売上集計 of a period (Japan days, both ends included): the sales paid in it (refunded later or not),
 * the sales refunded in it (whenever paid), 純売上 = amount − refunded_amount.
 */
export interface SalesSummary {
  from: string;
  to: string;
  count: number;
  amount: number;
  tax: number;
  refunded_count: number;
  refunded_amount: number;
  refunded_tax: number;
  net_amount: number;
  net_tax: number;
  by_license: LicenseTotals[];
}

const summaryQuery = (period: { from: string; to: string }) =>
  new URLSearchParams({ from: period.from, to: period.to }).toString();

export const useSalesSummary = (period: { from: string; to: string }) =>
  useSWR<{ summary: SalesSummary }>(`/api/sales/summary?${summaryQuery(period)}`);

/** The CSV of the same period: UTF-8 with BOM, or Shift_JIS (CP932) for older Excel. */
export const summaryCsvUrl = (period: { from: string; to: string }, encoding: 'utf-8' | 'shift_jis') =>
  `/api/sales/summary.csv?${summaryQuery(period)}&encoding=${encoding}`;
