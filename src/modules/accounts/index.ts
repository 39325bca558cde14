// The accounts module's public surface: what other modules may use.

export { AFFILIATIONS, combinedAffiliationName } from './affiliations.ts';
export { User } from './entities/user.entity.ts';
