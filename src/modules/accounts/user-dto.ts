import { permissionsOf } from '../../http/access.ts';
import type { User } from './entities/user.entity.ts';
import type { ProfileData } from './schemas.ts';

/** A user entity, or a row of the list (whose timestamps come as the database's text). */
type DtoSource = Pick<User, 'id' | 'email' | 'lastName' | 'firstName' | 'role' | 'emailVerified'> &
  Partial<
    Pick<
      User,
      | 'affiliation'
      | 'affiliationName'
      | 'affiliationOther'
      | 'distribution'
      | 'pendingEmail'
      | 'twoFactorEnabled'
      | 'lastNameKana'
      | 'firstNameKana'
    >
  > & {
    createdAt?: Date | string;
    updatedAt?: Date | string;
    lastSignInAt?: Date | string | null;
  };

/** The user as the API shows it (the seed's snake_case fields). */
export function userDto(user: DtoSource, extra: { pendingEmail?: string | null } = {}) {
  return {
    id: user.id,
    email: user.email,
    last_name: user.lastName,
    first_name: user.firstName,
    last_name_kana: user.lastNameKana ?? null,
    first_name_kana: user.firstNameKana ?? null,
    affiliations: user.affiliation ?? null,
    affiliation_name: user.affiliationName ?? '',
    affiliation_other: user.affiliationOther ?? null,
    distribution: user.distribution ?? true,
    role: user.role,
    permissions: permissionsOf(user.role),
    email_verified: user.emailVerified,
    two_factor_enabled: Boolean(user.twoFactorEnabled),
    last_sign_in_at: user.lastSignInAt ? new Date(user.lastSignInAt).toISOString() : null,
    ...(extra.pendingEmail !== undefined ? { pending_email: extra.pendingEmail } : {}),
    ...(user.createdAt ? { created_at: new Date(user.createdAt).toISOString() } : {}),
    // The version an edit carries back (a newer one answers 409).
    ...(user.updatedAt ? { updated_at: new Date(user.updatedAt).toISOString() } : {}),
  };
}

/** The registration/edit input as the confirm screen shows it (never the passwords). */
export function profileDto(input: ProfileData) {
  return {
    email: input.email,
    email_confirmation: input.email_confirmation,
    last_name: input.last_name,
    first_name: input.first_name,
    last_name_kana: input.last_name_kana ?? null,
    first_name_kana: input.first_name_kana ?? null,
    affiliations: input.affiliations,
    affiliation_name: input.affiliation_name,
    affiliation_other: input.affiliation_other,
    distribution: input.distribution ?? true,
  };
}

export const auditView = (user: User) => ({
  email: user.email,
  last_name: user.lastName,
  first_name: user.firstName,
  last_name_kana: user.lastNameKana ?? null,
  first_name_kana: user.firstNameKana ?? null,
  affiliations: user.affiliation,
  affiliation_name: user.affiliationName,
  affiliation_other: user.affiliationOther,
  distribution: user.distribution,
});
