import * as v from 'valibot';
import { PERMISSIONS, ROLES } from '../../http/access.ts';
import { pageEntries, timestamp } from '../../http/openapi.ts';

/** A member or administrator as the API shows them (userDto). */
const UserFields = v.object({
  id: v.string(),
  email: v.string(),
  last_name: v.string(),
  first_name: v.string(),
  last_name_kana: v.nullable(v.string()),
  first_name_kana: v.nullable(v.string()),
  affiliations: v.nullable(v.number()),
  affiliation_name: v.string(),
  affiliation_other: v.nullable(v.string()),
  distribution: v.boolean(),
  role: v.picklist(ROLES),
  /** What the role may do in the back office (http/access.ts); the SPA hides the rest. */
  permissions: v.array(v.picklist(PERMISSIONS)),
  email_verified: v.boolean(),
  two_factor_enabled: v.boolean(),
  last_sign_in_at: v.nullable(timestamp()),
  /** An e-mail change waiting for its confirmation link. */
  pending_email: v.optional(v.nullable(v.string())),
  created_at: v.optional(timestamp()),
  /** The version an edit carries back (a newer one answers 409). */
  updated_at: v.optional(timestamp()),
});
const UserAnswer = v.pipe(UserFields, v.metadata({ ref: 'User' }));

/** A member in the back office's list, with the figures accounts keeps from sale events. */
const ListedUserAnswer = v.pipe(
  v.object({
    ...UserFields.entries,
    /** Paid sales not refunded. */
    purchase_count: v.number(),
    paid_total: v.number(),
    last_purchase_at: v.nullable(timestamp()),
  }),
  v.metadata({ ref: 'ListedUser' }),
);

/** The seed's sign-in answer: the signed-in user, or none. */
export const SignInAnswer = v.pipe(v.object({ users: v.array(UserAnswer) }), v.metadata({ ref: 'SignIn' }));

/** POST /api/login for an account with two-factor: no session yet, the code comes next. */
const TwoFactorRequired = v.object({ two_factor_required: v.literal(true), trust_device_available: v.boolean() });
export const LoginAnswer = v.union([SignInAnswer, TwoFactorRequired]);

/** The registration or edit form as the confirm screen shows it (never a password). */
export const ProfileAnswer = v.object({
  user: v.object({
    email: v.string(),
    email_confirmation: v.string(),
    last_name: v.string(),
    first_name: v.string(),
    last_name_kana: v.nullable(v.string()),
    first_name_kana: v.nullable(v.string()),
    affiliations: v.number(),
    affiliation_name: v.string(),
    affiliation_other: v.nullable(v.string()),
    distribution: v.boolean(),
  }),
});

export const UserPageAnswer = v.object({ users: v.array(ListedUserAnswer), ...pageEntries, total_capped: v.boolean() });
export const OneUserAnswer = v.object({ user: UserAnswer });
export const UserWithMessageAnswer = v.object({ user: UserAnswer, message: v.string() });

export const ResetLinkAnswer = v.union([
  v.object({ valid: v.literal(true) }),
  v.object({ valid: v.literal(false), code: v.string(), message: v.string() }),
]);

export const SessionsAnswer = v.object({
  sessions: v.array(
    v.object({
      id: v.string(),
      current: v.boolean(),
      created_at: v.nullable(timestamp()),
      last_active_at: v.nullable(timestamp()),
      ip: v.nullable(v.string()),
      user_agent: v.nullable(v.string()),
      device: v.string(),
    }),
  ),
});

const Passkey = v.pipe(
  v.object({ id: v.string(), name: v.string(), created_at: v.nullable(timestamp()), synced: v.boolean() }),
  v.metadata({ ref: 'Passkey' }),
);
export const PasskeysAnswer = v.object({ passkeys: v.array(Passkey) });
export const PasskeysWithMessageAnswer = v.object({ passkeys: v.array(Passkey), message: v.string() });

export const TwoFactorStatusAnswer = v.object({
  enabled: v.boolean(),
  recovery_codes_remaining: v.nullable(v.number()),
  passkeys: v.array(Passkey),
});

/** WebAuthn options for the browser (`navigator.credentials`), as @simplewebauthn/server writes them. */
export const PasskeyOptionsAnswer = v.object({
  options: v.objectWithRest({ challenge: v.string() }, v.unknown()),
});
