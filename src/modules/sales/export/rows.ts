// Row mapping: a sale's buyer → the first seven cells of its record (the rest, ライセンス名 and
// 購入日時, come straight from the sale: columns.ts).
import { AFFILIATIONS, type Buyer, combinedAffiliationName } from '../../accounts/index.ts';

/** What the CSV shows of a buyer: a current member's details, or a deleted member's purchase-time snapshot. */
export type BuyerDetails = Pick<
  Buyer,
  'email' | 'lastName' | 'firstName' | 'affiliation' | 'affiliationName' | 'affiliationOther'
>;

/** A buyer's cells, メールアドレス to 所属名 (the same for each of their sales). */
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
