import { adminAuth, type FrameworkTransaction, type Row } from "@svc/store";
import { recordAudit } from "../audit.js";
import { type AuthRuntime, accountTablesOf, type SignInMethod, tablesOf } from "../auth-runtime.js";
import { deleteUserSessions } from "../session-store.js";
import { isoSeconds } from "../user-entity.js";

// Account pre-hijacking. `POST /api/auth/password/register` proves nothing
// about the address: anyone can register a password account for someone
// else's email and keep its session. When the owner of the address later
// signs in by magic code, magic link or an OAuth identity whose verified
// email matches, that sign-in finds the same `User` by email. Without this
// module the owner would share the account with whoever registered it.
//
// So when a sign-in (or a password reset) proves the address of an account that is not verified
// yet and has a password, every credential made before the proof is
// treated as the registrant's, not the owner's, and removed in the
// transaction that stamps `emailVerified` (Supabase Auth likewise drops a
// user's unconfirmed identities when a verified one links to it):
//
// - the password hash (the owner signs in by code, link or provider, or sets
//   a new password with the reset code, flows/password-reset.ts, which
//   claims the account here before it stores that password; `register`
//   refuses a taken address);
// - every session of the user (the owner's new one is made after the
//   commit) and every API key, which the registrant's sessions could mint;
// - the TOTP secret, backup codes, open challenges and trusted devices:
//   a second factor set up by the registrant would otherwise lock the owner
//   out (the sign-in would ask for the registrant's authenticator) and a
//   trusted device would let a password skip it;
// - `User.phone`, when declared: auth-core signs in whoever holds that
//   number, and only the registrant could have put it on the row.
//
// Linked OAuth accounts stay: on an unverified account there can be none,
// since linking by a verified email verifies the account in the same
// transaction. Application rows are not auth-core's to judge. JWTs minted
// before cannot be revoked (the specification's rule) and live until `exp`.
//
// A user who verifies their own address with `POST /api/auth/email/verify`
// is not affected: that route needs a session of the account, so whoever
// proves the address there already holds it (flows/email-verification.ts).

/** How a sign-in proved the address: the audit event's `method` (and `provider`). */
export interface AddressProof {
  readonly method: Extract<SignInMethod, "magic-code" | "magic-link" | "oauth" | "password-reset">;
  /** The OAuth provider's id. */
  readonly provider?: string;
  /** The client's address, for the audit event. */
  readonly ip?: string | undefined;
}

/** What a claim removed, as the `AccountClaim` audit event records it. */
export interface AccountClaimed {
  readonly method: AddressProof["method"];
  readonly provider?: string;
  readonly password: true;
  readonly sessions: number;
  readonly api_keys: number;
  readonly totp: boolean;
  readonly trusted_devices: number;
  readonly phone: boolean;
}

/** True when the row's address counts as verified (never without an `emailVerified` field). */
function isEmailVerified(runtime: AuthRuntime, user: Row): boolean {
  return runtime.users.require().hasEmailVerified && user.emailVerified != null;
}

/**
 * Inside `tx`: records that a sign-in proved the address of `userId`. When
 * the user was not verified, stamps `emailVerified` (when declared); when it
 * also had a password, removes the credentials made before the proof and
 * writes an `AccountClaim` audit event (see the top of this file). Resolves
 * with what was removed, or null. Call `runtime.credentials.forgetUser`
 * after the commit when it is not null.
 *
 * The password row is deleted first and only the transaction that deleted
 * it removes the rest, so two concurrent proofs claim once. Password login
 * locks that row while it creates its session (flows/password.ts), so a
 * login racing the claim either fails or makes a session this deletes.
 */
export async function proveAddressIn(
  runtime: AuthRuntime,
  tx: FrameworkTransaction,
  userId: string,
  proof: AddressProof,
): Promise<AccountClaimed | null> {
  const { hasEmailVerified, hasPhone } = runtime.users.require();
  const user = await tx.entities.get("User", userId);
  if (user === null || isEmailVerified(runtime, user)) return null;
  const accounts = accountTablesOf(runtime, tx.db);
  const password = await accounts
    .deleteFrom("svc_passwords")
    .where("user_id", "=", userId)
    .executeTakeFirst();
  const claiming = Number(password.numDeletedRows) > 0;
  const phone = claiming && hasPhone && user.phone != null;
  if (hasEmailVerified || phone) {
    await tx.entities.update("User", userId, {
      ...(hasEmailVerified && { emailVerified: isoSeconds(runtime.now()) }),
      ...(phone && { phone: null }),
    });
  }
  if (!claiming) return null;
  // Second factor before sessions: a TOTP sign-in spends its challenge and
  // creates its session in one transaction, so once the challenges are
  // deleted every session it could have made is visible to the delete below.
  const secondFactor = await runtime.credentials.deleteSecondFactor(tx.db, userId);
  const sessions = tablesOf(runtime, tx.db);
  // Sessions before API keys: key creation locks its session (`lockLiveSession`).
  const revokedSessions = await deleteUserSessions(sessions, userId);
  const revokedKeys = await runtime.credentials.deleteApiKeys(sessions, userId);
  const claimed: AccountClaimed = {
    method: proof.method,
    ...(proof.provider !== undefined && { provider: proof.provider }),
    password: true,
    sessions: revokedSessions,
    api_keys: revokedKeys,
    totp: secondFactor.secret,
    trusted_devices: secondFactor.trustedDevices,
    phone,
  };
  await recordAudit(accounts, {
    userId,
    kind: "AccountClaim",
    at: runtime.now(),
    data: { ...claimed },
    ip: proof.ip,
  });
  return claimed;
}

/**
 * `proveAddressIn` in a transaction of its own, for a sign-in that found
 * `user` by the address it proved; then forgets the user's cached
 * credentials when any were removed. A row already verified costs no
 * transaction.
 */
export async function proveAddress(
  runtime: AuthRuntime,
  user: Row,
  proof: AddressProof,
): Promise<AccountClaimed | null> {
  if (isEmailVerified(runtime, user)) return null;
  const claimed = await runtime.store.frameworkTransaction(adminAuth, (tx) =>
    proveAddressIn(runtime, tx, user.id, proof),
  );
  if (claimed !== null) await runtime.credentials.forgetUser(user.id, "account-claimed");
  return claimed;
}
