import { Algorithm, hash, verify } from '@node-rs/argon2';

// OWASP's argon2id floor: m = 19 MiB, t = 2, p = 1.
const options = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

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
