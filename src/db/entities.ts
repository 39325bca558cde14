import { AuditLog } from '../audit/audit-log.entity.ts';
import { OutboxEvent } from '../events/outbox-event.entity.ts';
import { AccountToken } from '../modules/accounts/entities/account-token.entity.ts';
import { Account, Session, User, Verification } from '../modules/accounts/entities/user.entity.ts';
import { CheckoutSession, StripeEvent } from '../modules/checkout/entities/checkout-session.entity.ts';
import { Export } from '../modules/exports/entities/export.entity.ts';
import { License, LicensePicture } from '../modules/licenses/entities/license.entity.ts';
import { MailDelivery } from '../modules/mail/entities/mail-delivery.entity.ts';
import { Sale } from '../modules/sales/entities/sale.entity.ts';

/** The explicit entity list: every table MikroORM knows about and migrates. */
export const entities = [
  User,
  Session,
  Account,
  Verification,
  AccountToken,
  License,
  LicensePicture,
  CheckoutSession,
  StripeEvent,
  Sale,
  Export,
  AuditLog,
  OutboxEvent,
  MailDelivery,
];
