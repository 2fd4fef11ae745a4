import { randomInt } from "node:crypto";

/** How many backup codes `confirm` hands out. */
export const BACKUP_CODE_COUNT = 10;

/** Lower-case letters and digits without the look-alikes 0/o, 1/l/i. */
export const BACKUP_CODE_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz";

const LENGTH = 10;
const NORMALIZED = new RegExp(`^[${BACKUP_CODE_ALPHABET}]{${LENGTH}}$`);

/** One backup code, `xxxxx-xxxxx`: 10 characters (about 49 bits) from the CSPRNG. */
export function newBackupCode(): string {
  let code = "";
  for (let i = 0; i < LENGTH; i++) {
    code += BACKUP_CODE_ALPHABET[randomInt(BACKUP_CODE_ALPHABET.length)];
  }
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/** `count` distinct backup codes (default `BACKUP_CODE_COUNT`). */
export function newBackupCodes(count = BACKUP_CODE_COUNT): string[] {
  const codes = new Set<string>();
  while (codes.size < count) codes.add(newBackupCode());
  return [...codes];
}

/**
 * A typed backup code as it is hashed: lower-cased, without spaces and
 * dashes. Null when it cannot be a backup code (wrong length or letters).
 */
export function normalizeBackupCode(input: string): string | null {
  const normalized = input.toLowerCase().replace(/[\s-]/g, "");
  return NORMALIZED.test(normalized) ? normalized : null;
}
