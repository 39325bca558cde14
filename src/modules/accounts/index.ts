// The accounts module's public surface: what the host and other modules may use.
import type { AppModule } from '../../http/context.ts';
import { AccountToken } from './entities/account-token.entity.ts';
import { ConsentChange, UnsubscribeToken } from './entities/consent.entity.ts';
import { KnownDevice } from './entities/known-device.entity.ts';
import { Passkey, TwoFactor, TwoFactorLock } from './entities/two-factor.entity.ts';
import { Account, Session, User, Verification } from './entities/user.entity.ts';
import { UserNote } from './entities/user-note.entity.ts';
import {
  onEmailChangeAttempted,
  onEmailChangedByAdmin,
  onEmailChangeRequested,
  onMemberWithdrew,
  onNewDeviceSignIn,
  onPasswordChanged,
  onPasswordResetRequested,
  onRegistrationAttempted,
  onSignInThrottled,
  onTwoFactorChanged,
  onUserRegistered,
  onVerificationEmailRequested,
} from './handlers/account-mails.ts';
import { onTwoFactorLocked } from './handlers/two-factor-lock-mail.ts';
import { accountRoutes } from './routes.ts';
import { UNSUBSCRIBE_PATH, unsubscribeRoutes } from './unsubscribe-routes.ts';

export { staffNetworkRefusals } from './admin-sign-ins.ts';
export { createOrPromoteAdmin } from './admin-users.ts';
export { AFFILIATIONS, combinedAffiliationName } from './affiliations.ts';
export { accountAuditLabels } from './audit-labels.ts';
export { createAuth } from './auth.ts';
export { administrators, type Buyer, currentBuyers, findBuyer } from './buyers.ts';
export {
  announcementAudience,
  announcementRecipients,
  consentHistory,
  legalNoticeAudienceSize,
  setDistribution,
  testRecipient,
} from './consent.ts';
export { newMembers } from './dashboard.ts';
export { purchaseFiguresKeeper } from './handlers/purchase-figures.ts';
export { membersMatching } from './member-match.ts';
export { redisSignInChallenges } from './passkey-challenges.ts';
export { newPasswordProblem } from './password-policy.ts';
export { reencryptTwoFactorSecrets } from './secret-rotation.ts';
export { createSessionReader } from './session.ts';
export { createUser } from './users.ts';

/** Demo accounts for an empty development database: loaded only when used, never in production. */
export const loadDemo = () => import('./demo.ts');

export const accounts = {
  name: 'accounts',
  api: accountRoutes,
  root: unsubscribeRoutes,
  csrfExempt: [UNSUBSCRIBE_PATH],
  entities: [
    User,
    Session,
    Account,
    Verification,
    AccountToken,
    KnownDevice,
    TwoFactor,
    Passkey,
    TwoFactorLock,
    ConsentChange,
    UnsubscribeToken,
    UserNote,
  ],
  handlers: {
    UserRegistered: onUserRegistered,
    RegistrationAttempted: onRegistrationAttempted,
    VerificationEmailRequested: onVerificationEmailRequested,
    EmailChangeRequested: onEmailChangeRequested,
    EmailChangeAttempted: onEmailChangeAttempted,
    EmailChangedByAdmin: onEmailChangedByAdmin,
    PasswordResetRequested: onPasswordResetRequested,
    SignInThrottled: onSignInThrottled,
    MemberWithdrew: onMemberWithdrew,
    PasswordChanged: onPasswordChanged,
    NewDeviceSignIn: onNewDeviceSignIn,
    TwoFactorChanged: onTwoFactorChanged,
    TwoFactorLocked: onTwoFactorLocked,
  },
} satisfies AppModule;
