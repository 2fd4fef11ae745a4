import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * In dev mode without `SVC_ADMIN_TOKEN`, the server keeps a random admin
 * token in a file (mode 0600) so it survives restarts and scripts can read
 * it. Outside dev mode the variable is mandatory and this is never used.
 */
export async function readOrCreateDevAdminToken(path: string): Promise<string> {
  try {
    const existing = (await readFile(path, "utf8")).trim();
    if (existing.length >= 64) return existing;
  } catch {
    // No token yet: make one below.
  }
  const token = randomBytes(64).toString("hex");
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${token}\n`, { mode: 0o600 });
  return token;
}
