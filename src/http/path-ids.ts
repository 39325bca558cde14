/**
 * Numeric path ids (sales, licences) are canonical decimals of a positive int4 below 10^9: `01`, `+1`,
 * `1.0`, ` 1` and longer numbers are no id, so `/api/sales/01/refund` cannot act on sale 1 and a number
 * past int4 never reaches PostgreSQL (404, never a 500). Routes put NUMERIC_ID in their pattern; a
 * handler that reads the segment itself checks it with isNumericId.
 */
const DIGITS = '[1-9][0-9]{0,8}';
export const NUMERIC_ID = `:id{${DIGITS}}`;
const CANONICAL = new RegExp(`^${DIGITS}$`);
export const isNumericId = (raw: string | undefined): raw is string => raw !== undefined && CANONICAL.test(raw);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A record id that is a UUID (users, exports, mails…): checked before it reaches a uuid column. */
export const isUuid = (raw: string): boolean => UUID.test(raw);
