import { randomInt } from 'node:crypto';
import { japanYearMonth } from '../../lib/japan-time.ts';

/**
 * Order numbers (docs/decisions/0030-order-numbers.md): `LS-2611-7K3Q9M` — the shop's prefix, the
 * Japan year and month of the sale, and 6 random characters of Crockford's base32 (no I, L, O or U,
 * so nothing reads as 1 or 0). Random, not sequential: a number says nothing about how much the shop
 * sells, cannot be guessed from another, and holds no personal data.
 */
const ORDER_NUMBER_PREFIX = 'LS';
export const ORDER_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const RANDOM_LENGTH = 6;

/** The canonical form: `LS-YYMM-XXXXXX`. */
export const ORDER_NUMBER_PATTERN = /^LS-\d{4}-[0-9A-HJKMNP-TV-Z]{6}$/;

/** A new order number for a sale paid at `paidAt` (crypto randomness; the unique index catches the rare repeat). */
export function newOrderNumber(paidAt: Date): string {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += ORDER_ALPHABET[randomInt(ORDER_ALPHABET.length)];
  return `${ORDER_NUMBER_PREFIX}-${japanYearMonth(paidAt)}-${random}`;
}
