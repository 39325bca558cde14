import { Hono } from 'hono';
import { LIMITS } from '../../config/limits.ts';
import type { AppEnv } from '../../http/context.ts';
import { permit, requireUser, signedInUser } from '../../http/guards.ts';
import { NUMERIC_ID } from '../../http/path-ids.ts';
import { jsonInput } from '../../http/validate.ts';
import { contentDisposition } from '../../lib/csv.ts';
import { chooseAddressee, issueReceipt, receiptState } from './receipt.ts';
import { requestReceiptCopyMail } from './receipt-copy.ts';
import { receiptDocs } from './receipt-docs.ts';
import { AddresseeInput, ReceiptCopyMailInput } from './schemas.ts';

const SALE = `/sales/${NUMERIC_ID}`;

/** 領収書: the addressee choice and the PDF for the buyer of the sale; an administrator reads the 控え. */
export const receiptRoutes = new Hono<AppEnv>()
  .get(`${SALE}/receipt-addressee`, receiptDocs.state, requireUser, async (c) => {
    const { deps } = c.var;
    const receiptDeps = { orm: deps.orm, payments: deps.payments, log: c.var.log };
    return c.json(await receiptState(receiptDeps, signedInUser(c), Number(c.req.param('id'))));
  })
  .put(`${SALE}/receipt-addressee`, receiptDocs.choose, requireUser, async (c) => {
    const input = await jsonInput(c, AddresseeInput);
    const receipt = await chooseAddressee(c.var.deps.orm, signedInUser(c), Number(c.req.param('id')), input);
    return c.json({ receipt, message: `領収書の宛名を「${receipt.addressee}」にしました。` });
  })
  .get(`${SALE}/receipt`, receiptDocs.pdf, requireUser, async (c) => {
    const user = signedInUser(c);
    const { deps } = c.var;
    await deps.rateLimit.hit(LIMITS.receiptsPerMember, user.id);
    const receipt = await issueReceipt(
      { orm: deps.orm, payments: deps.payments, log: c.var.log },
      user,
      Number(c.req.param('id')),
      { copy: c.req.query('copy') === '1' },
    );
    c.var.log.info(receipt.copy ? 'receipt copy shown' : receipt.issueCount > 1 ? 'receipt re-issued' : 'receipt issued', {
      saleId: Number(c.req.param('id')),
      receiptNumber: receipt.receiptNumber,
      issueCount: receipt.issueCount,
      by: user.id,
    });
    return c.body(new Uint8Array(receipt.pdf), 200, {
      'Content-Type': 'application/pdf',
      'Content-Disposition': contentDisposition({
        utf8: `領収書_${receipt.receiptNumber}${receipt.copy ? '_控え' : ''}.pdf`,
        ascii: `receipt_${receipt.receiptNumber}${receipt.copy ? '_copy' : ''}.pdf`,
      }),
      'X-Receipt-Issue-Count': String(receipt.issueCount),
      ...(receipt.copy ? { 'X-Receipt-Copy': '1' } : {}),
    });
  })
  .post(`${SALE}/receipt-copy/mail`, receiptDocs.mailCopy, permit('members:update'), async (c) => {
    const { email } = await jsonInput(c, ReceiptCopyMailInput);
    await requestReceiptCopyMail(c.var.deps.orm, signedInUser(c), Number(c.req.param('id')), email);
    return c.json({ message: `領収書の控えを ${email} あてに送ります。まもなく送信されます。` }, 202);
  });
