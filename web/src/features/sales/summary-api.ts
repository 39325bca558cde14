import useSWR from 'swr';
import type { Answer } from '../../lib/api';

/**
 * 売上集計 of a period (Japan days, both ends included): the sales paid in it (refunded later or not),
 * the sales refunded in it (whenever paid), 純売上 = amount − refunded_amount.
 */
export type SalesSummary = Answer<'/api/sales/summary'>['summary'];

const summaryQuery = (period: { from: string; to: string }) =>
  new URLSearchParams({ from: period.from, to: period.to }).toString();

export const useSalesSummary = (period: { from: string; to: string }) =>
  useSWR<Answer<'/api/sales/summary'>>(`/api/sales/summary?${summaryQuery(period)}`);

/** The CSV of the same period: UTF-8 with BOM, or Shift_JIS (CP932) for older Excel. */
export const summaryCsvUrl = (period: { from: string; to: string }, encoding: 'utf-8' | 'shift_jis') =>
  `/api/sales/summary.csv?${summaryQuery(period)}&encoding=${encoding}`;

/** 受注CSV: a row per sale paid in the period and per earlier sale refunded in it; its sums are the summary's. */
export const ordersCsvUrl = (period: { from: string; to: string }, encoding: 'utf-8' | 'shift_jis') =>
  `/api/sales/orders.csv?${summaryQuery(period)}&encoding=${encoding}`;
