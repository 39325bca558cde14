// Row mapping: a sale and its buyer → the cells of one record of the training system's CSV.
import { AFFILIATIONS, type Buyer, combinedAffiliationName } from '../../accounts/index.ts';

/** The columns the seed's training system reads, in its order. */
export const EXPORT_HEADER = ['メールアドレス', '姓', '名', '言語', 'グループ', '所属', '所属名', 'ライセンス名', '購入日時'];
/** The field a column's cell comes from, as the preflight names it (else the column's header). */
export const FIELD_OF_COLUMN = [
  'email',
  'last_name',
  'first_name',
  null,
  'group',
  null,
  'affiliation_name',
  'license_name',
  null,
] as const;

/** What the CSV shows of a buyer: a current member's details, or a deleted member's purchase-time snapshot. */
export type BuyerDetails = Pick<
  Buyer,
  'email' | 'lastName' | 'firstName' | 'affiliation' | 'affiliationName' | 'affiliationOther'
>;

/** A buyer's cells, メールアドレス to 所属名 (the first seven columns; the same for each of their sales). */
export function buyerCells(buyer: BuyerDetails, groupName: string): string[] {
  return [
    buyer.email,
    buyer.lastName,
    buyer.firstName,
    '日本語',
    groupName,
    buyer.affiliation ? (AFFILIATIONS[buyer.affiliation as keyof typeof AFFILIATIONS] ?? '') : '',
    combinedAffiliationName(buyer.affiliation, buyer.affiliationName, buyer.affiliationOther),
  ];
}

/** 2026-11-22T15:30:00.123 (Japan time) → 2026/11/22 15:30:00, as the training system reads it. */
export const jstCell = (iso: string) => `${iso.slice(0, 4)}/${iso.slice(5, 7)}/${iso.slice(8, 10)} ${iso.slice(11, 19)}`;
/** The last cell of a record, 購入日時, with the line's CRLF: always 21 ASCII bytes, never quoted. */
export const jstLine = (iso: string) => `${jstCell(iso)}\r\n`;
export const DATE_LINE_BYTES = 21;

/**
 * A page of records: per sale its buyer (as the reader's `person` made it: their cells, or those cells
 * already encoded), licence name and purchase time (Japan time, ISO 8601).
 */
export interface RecordBatch<P> {
  ids: number[];
  people: P[];
  licenseNames: string[];
  paidAt: string[];
}
