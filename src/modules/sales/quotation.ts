import { randomInt } from 'node:crypto';
import { Hono } from 'hono';
import { LIMITS } from '../../config/limits.ts';
import { db as kysely } from '../../db/kysely.ts';
import type { Em, Orm } from '../../db/orm.ts';
import type { AppEnv, SessionUser } from '../../http/context.ts';
import { AppError } from '../../http/errors.ts';
import { may, requireUser, signedInUser } from '../../http/guards.ts';
import { isNumericId } from '../../http/path-ids.ts';
import { queryInput } from '../../http/validate.ts';
import { contentDisposition } from '../../lib/csv.ts';
import { japanYearMonth } from '../../lib/japan-time.ts';
import { findLicenseForSale, LICENSE_NOT_FOUND } from '../licenses/index.ts';
import { ORDER_ALPHABET } from './order-number.ts';
import { quotationDocs } from './quotation-docs.ts';
import { renderQuotationPdf } from './quotation-pdf.ts';
import { QuotationQuery } from './schemas.ts';

const VALID_DAYS = 30;

/** `QT-2611-7K3Q9M`: like an order number, random, so it says nothing of how many were asked for. */
function newQuotationNumber(at: Date): string {
  let random = '';
  for (let i = 0; i < 6; i++) random += ORDER_ALPHABET[randomInt(ORDER_ALPHABET.length)];
  return `QT-${japanYearMonth(at)}-${random}`;
}

/** Renders the 御見積書 for the stored price, then records it (number, member, licence, price, time). */
async function issueQuotation(orm: Orm, user: SessionUser, licenseId: number, addressee: string) {
  const em = orm.em.fork() as Em;
  const license = await findLicenseForSale(em, licenseId);
  if (!license || (!license.published && !may(user, 'licenses:read'))) throw new AppError('not_found', LICENSE_NOT_FOUND);
  const issuedAt = new Date();
  const expiresAt = new Date(issuedAt.getTime() + VALID_DAYS * 86_400_000);
  for (let attempt = 0; attempt < 5; attempt++) {
    const quotationNumber = newQuotationNumber(issuedAt);
    const content = { quotationNumber, addressee, licenseName: license.name, amount: license.price, issuedAt, expiresAt };
    const pdf = await renderQuotationPdf(content);
    const recorded = await kysely(em)
      .insertInto('quotations')
      .values({
        quotation_number: quotationNumber,
        user_id: user.id,
        license_id: license.id,
        license_name: license.name,
        amount: license.price,
        addressee,
        issued_at: issuedAt.toISOString(),
        expires_at: expiresAt.toISOString(),
      })
      .onConflict((oc) => oc.column('quotation_number').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (recorded) return { pdf, quotationNumber };
  }
  throw new AppError('unavailable', '見積書を発行できませんでした。時間をおいて再度お試しください。');
}

export const quotationRoutes = new Hono<AppEnv>().get(
  '/licenses/:id{[0-9]+}/quotation',
  quotationDocs.pdf,
  requireUser,
  async (c) => {
    const raw = c.req.param('id');
    if (!isNumericId(raw)) throw new AppError('not_found', LICENSE_NOT_FOUND);
    const input = queryInput(c, QuotationQuery);
    const user = signedInUser(c);
    await c.var.deps.rateLimit.hit(LIMITS.quotationsPerMember, user.id);
    const { pdf, quotationNumber } = await issueQuotation(
      c.var.deps.orm,
      user,
      Number(raw),
      // No 宛名 typed: the honorific alone, as printed (no leading space in the record or the search).
      `${input.addressee} ${input.honorific}`.trim(),
    );
    c.var.log.info('quotation issued', { quotationNumber, licenseId: Number(raw), by: user.id });
    return c.body(new Uint8Array(pdf), 200, {
      'Content-Type': 'application/pdf',
      'Content-Disposition': contentDisposition({
        utf8: `御見積書_${quotationNumber}.pdf`,
        ascii: `quotation_${quotationNumber}.pdf`,
      }),
      'X-Quotation-Number': quotationNumber,
    });
  },
);
