import { adminAuth, dialectFor, StoreError } from "@svc/store";
import {
  type AuthRuntime,
  accountTablesOf,
  type SignIn,
  type SignInResult,
  signIn,
} from "../auth-runtime.js";
import { AuthError } from "../errors.js";
import { normalizeEmail } from "../normalize.js";
import {
  hashPassword,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  verifyDummyPassword,
  verifyPassword,
} from "../password-hash.js";
import type { ClientInfo } from "../session-store.js";

/**
 * A new password from a request body, by the registration rules: 10 to 256
 * code points, else `MISSING_PASSWORD` / `INVALID_PASSWORD`.
 */
export function readPassword(value: unknown): string {
  if (value === undefined || value === null || value === "")
    throw new AuthError("MISSING_PASSWORD");
  if (typeof value !== "string") throw new AuthError("INVALID_PASSWORD");
  // Length in code points, so an emoji counts once.
  const length = [...value].length;
  if (length < MIN_PASSWORD_LENGTH || length > MAX_PASSWORD_LENGTH) {
    throw new AuthError("INVALID_PASSWORD");
  }
  return value;
}

/**
 * `POST /api/auth/password/register`: creates the `User` row (unverified)
 * and its password hash in one transaction, then signs in. An address that
 * already has an account answers 409 `EMAIL_IN_USE`: setting a password on
 * someone's magic-code account would hand it to whoever asked.
 */
export async function registerPassword(
  runtime: AuthRuntime,
  body: { email?: unknown; password?: unknown },
  client: ClientInfo,
): Promise<SignIn> {
  const email = normalizeEmail(body.email);
  const password = readPassword(body.password);
  runtime.users.require();
  if ((await runtime.users.findByField("email", email)) !== null)
    throw new AuthError("EMAIL_IN_USE");
  // argon2 runs before the transaction: it takes tens of milliseconds.
  const hash = await hashPassword(password);
  try {
    return await runtime.store.frameworkTransaction(adminAuth, async (tx) => {
      const user = await tx.entities.insert("User", { email });
      await accountTablesOf(runtime, tx.db)
        .insertInto("svc_passwords")
        .values({ user_id: user.id, hash, updated_at: runtime.now() })
        .execute();
      return signIn(runtime, { userId: user.id, method: "sign-up", client, db: tx.db });
    });
  } catch (error) {
    if (error instanceof StoreError && error.code === "UNIQUE_VIOLATION") {
      throw new AuthError("EMAIL_IN_USE");
    }
    throw error;
  }
}

/**
 * `POST /api/auth/password/login`. Unknown email, account without a
 * password and wrong password all answer the same 401
 * `INVALID_CREDENTIALS`, and take the same time (a dummy argon2 verify).
 *
 * The session is created in a transaction that finds the hash it checked
 * still in place and, on Postgres, locks it: argon2 takes tens of
 * milliseconds, and a password removed meanwhile (the address's owner
 * claiming the account, flows/address-proof.ts) must not let a login that
 * started before the removal end with a session.
 */
export async function loginPassword(
  runtime: AuthRuntime,
  body: { email?: unknown; password?: unknown },
  client: ClientInfo,
): Promise<SignInResult> {
  const email = normalizeEmail(body.email);
  if (body.password === undefined || body.password === null || body.password === "") {
    throw new AuthError("MISSING_PASSWORD");
  }
  const password = typeof body.password === "string" ? body.password : "";
  runtime.users.require();
  const user = await runtime.users.findByField("email", email);
  const stored =
    user === null
      ? undefined
      : await accountTablesOf(runtime)
          .selectFrom("svc_passwords")
          .select("hash")
          .where("user_id", "=", user.id)
          .executeTakeFirst();
  const tooLong = [...password].length > MAX_PASSWORD_LENGTH;
  const ok =
    user !== null && stored !== undefined && password !== "" && !tooLong
      ? await verifyPassword(stored.hash, password)
      : await verifyDummyPassword(tooLong ? "" : password);
  if (!ok || user === null || stored === undefined) throw new AuthError("INVALID_CREDENTIALS");
  // A challenge needs TOTP, which a claim removes together with the password.
  const challenge = await runtime.secondFactor?.challenge(user.id, client);
  if (challenge !== undefined && challenge !== null) return challenge;
  return runtime.database.db.transaction().execute(async (trx) => {
    const select = accountTablesOf(runtime, trx)
      .selectFrom("svc_passwords")
      .select("hash")
      .where("user_id", "=", user.id);
    const current = await dialectFor(runtime.database.dialect)
      .lockForUpdate(select)
      .executeTakeFirst();
    if (current?.hash !== stored.hash) throw new AuthError("INVALID_CREDENTIALS");
    return signIn(runtime, { userId: user.id, method: "password", client, db: trx });
  });
}
