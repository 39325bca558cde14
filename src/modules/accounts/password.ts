import { hash, verify } from '@node-rs/argon2';

// OWASP's argon2id floor: m = 19 MiB, t = 2, p = 1.
// algorithm 2 is Algorithm.Argon2id (a const enum, which type stripping cannot import).
const options = { algorithm: 2 as const, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, options);
}

export async function verifyPassword(digest: string, password: string): Promise<boolean> {
  try {
    return await verify(digest, password);
  } catch {
    return false; // not an argon2 digest
  }
}
