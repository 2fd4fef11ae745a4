import { hash, verify } from "@node-rs/argon2";

/** The shortest password accepted. */
export const MIN_PASSWORD_LENGTH = 10;
/** The longest password accepted: long passphrases fit, megabyte bodies do not reach argon2. */
export const MAX_PASSWORD_LENGTH = 256;

// OWASP's minimum argon2id configuration: 19 MiB of memory, 2 passes, 1 lane.
const ARGON2ID = {
  // Algorithm.Argon2id; the package declares it as a const enum, which
  // isolated modules cannot read, so its value is written out.
  algorithm: 2,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

/** Hashes a password with argon2id (OWASP minimum parameters) into a PHC string. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2ID);
}

/** Whether `password` matches a PHC hash from `hashPassword`; false for a malformed hash. */
export async function verifyPassword(phc: string, password: string): Promise<boolean> {
  try {
    return await verify(phc, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;

/**
 * Spends the time of one real verification and returns false: used for an
 * unknown email, so a login's duration does not tell whether the account exists.
 */
export async function verifyDummyPassword(password: string): Promise<false> {
  dummyHash ??= hashPassword("svc dummy password for timing equality");
  await verifyPassword(await dummyHash, password);
  return false;
}
