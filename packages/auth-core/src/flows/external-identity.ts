import { createHash } from "node:crypto";
import { adminAuth, isUniqueViolation } from "@svc/store";
import type { Kysely } from "kysely";
import { recordAudit } from "../audit.js";
import {
  type AuthRuntime,
  accountTablesOf,
  completeSignIn,
  type SignInResult,
} from "../auth-runtime.js";
import { AuthError } from "../errors.js";
import { normalizeEmail } from "../normalize.js";
import { newRowId } from "../secrets.js";
import type { ClientInfo } from "../session-store.js";
import type { AuthTables } from "../tables.js";
import { isoSeconds } from "../user-entity.js";
import { proveAddress, proveAddressIn } from "./address-proof.js";

/**
 * An identity an external provider (OAuth, OpenID Connect, SSO) vouched
 * for: auth-core's side of the contract with @svc/oauth-providers, which
 * produces exactly this shape.
 */
export interface ExternalIdentity {
  /** The provider's id, e.g. `github`. */
  readonly provider: string;
  /** The provider's stable user id (`sub` for OpenID Connect). */
  readonly providerUserId: string;
  readonly email: string | null;
  /** True only when the provider asserts it verified `email`. */
  readonly emailVerified: boolean;
  readonly name?: string;
  readonly avatarUrl?: string;
}

/** The domain of the addresses made up for identities without a usable email. */
export const SYNTHESIZED_EMAIL_DOMAIN = "oauth.svc.invalid";

const PROVIDER_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const MAX_PROVIDER_USER_ID = 255;

/**
 * The address a user without a usable provider email gets: stable per
 * identity, under the reserved `.invalid` top-level domain (RFC 6761), so
 * it can never receive mail, and refused by every sign-in flow, so nobody
 * can claim it by code or password.
 */
export function synthesizedEmail(provider: string, providerUserId: string): string {
  const digest = createHash("sha256").update(`${provider}\0${providerUserId}`).digest("hex");
  return `${provider}.${digest.slice(0, 32)}@${SYNTHESIZED_EMAIL_DOMAIN}`;
}

interface CheckedIdentity {
  readonly provider: string;
  readonly providerUserId: string;
  /** The provider's address, normalized; null when absent or unusable. */
  readonly email: string | null;
  readonly emailVerified: boolean;
  readonly name: string | undefined;
  readonly avatarUrl: string | undefined;
}

/** Longest profile value copied onto a new user. */
const MAX_PROFILE_LENGTH = 2048;

function profileValue(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  return trimmed === "" || trimmed.length > MAX_PROFILE_LENGTH || /\p{Cc}/u.test(trimmed)
    ? undefined
    : trimmed;
}

function checkIdentity(identity: ExternalIdentity): CheckedIdentity {
  const { provider, providerUserId } = identity;
  if (
    typeof provider !== "string" ||
    !PROVIDER_ID.test(provider) ||
    typeof providerUserId !== "string" ||
    providerUserId === "" ||
    providerUserId.length > MAX_PROVIDER_USER_ID
  ) {
    throw new TypeError("signInWithIdentity: the identity needs a provider id and a user id.");
  }
  let email: string | null = null;
  if (typeof identity.email === "string") {
    try {
      email = normalizeEmail(identity.email);
    } catch {
      // A malformed or reserved address from a provider counts as none.
      email = null;
    }
  }
  return {
    provider,
    providerUserId,
    email,
    emailVerified: email !== null && identity.emailVerified === true,
    name: profileValue(identity.name),
    avatarUrl: profileValue(identity.avatarUrl),
  };
}

async function findLinkedUserId(
  accounts: Kysely<AuthTables>,
  identity: CheckedIdentity,
): Promise<string | undefined> {
  const row = await accounts
    .selectFrom("svc_linked_accounts")
    .select("user_id")
    .where("provider", "=", identity.provider)
    .where("provider_user_id", "=", identity.providerUserId)
    .executeTakeFirst();
  return row?.user_id;
}

/**
 * Signs in the user an external identity belongs to. The linking rules:
 *
 * 1. An identity linked before signs in its user.
 * 2. Otherwise, an email the provider verified finds (or creates) the user
 *    with that address, stamps `emailVerified` when unset, and links. An
 *    existing user that was not verified and has a password loses the
 *    credentials made before (flows/address-proof.ts), as after a magic
 *    code: whoever registered the address need not have owned it.
 * 3. Otherwise (no email, or one the provider does not vouch for) a new
 *    user gets a synthesized `.invalid` address and the link. An unverified
 *    address that belongs to an existing user is refused with
 *    `ACCOUNT_NOT_LINKED`: linking on it would let anyone who can make a
 *    provider account with someone's address take over their svc account.
 *
 * A new user gets the provider's `name` and `avatarUrl` when `User`
 * declares string fields `name` and `avatarUrl` (or `image`).
 *
 * A user with a second factor gets the challenge, as after any first
 * factor. The user row, the link and the `AccountLink` audit event commit
 * together; two concurrent first sign-ins of one identity end on one user.
 */
export async function signInWithIdentity(
  runtime: AuthRuntime,
  identity: ExternalIdentity,
  client: ClientInfo,
): Promise<SignInResult> {
  runtime.users.require();
  const checked = checkIdentity(identity);
  const signInAs = (userId: string, signUp: boolean) =>
    completeSignIn(runtime, {
      userId,
      method: "oauth",
      client,
      signUp,
      detail: { provider: checked.provider },
    });

  const linkedId = await findLinkedUserId(accountTablesOf(runtime), checked);
  if (linkedId !== undefined) {
    const user = await runtime.users.get(linkedId);
    if (user !== null) {
      if (checked.emailVerified && user.email === checked.email) {
        await proveAddress(runtime, user, {
          method: "oauth",
          provider: checked.provider,
          ip: client.ip,
        });
      }
      return signInAs(user.id, false);
    }
    // The user row went away without account deletion (which unlinks):
    // the link is stale, so start over as a first sign-in.
    await accountTablesOf(runtime)
      .deleteFrom("svc_linked_accounts")
      .where("user_id", "=", linkedId)
      .execute();
  }

  // A unique violation means a concurrent sign-in of this identity (or a
  // sign-up with this email) won the race; the second attempt finds its rows.
  for (let attempt = 0; ; attempt++) {
    try {
      const linked = await linkIdentity(runtime, checked, client.ip);
      if (linked.claimed) await runtime.credentials.forgetUser(linked.userId, "account-claimed");
      return signInAs(linked.userId, linked.created);
    } catch (error) {
      if (attempt > 0 || !isUniqueViolation(error)) throw error;
      const winner = await findLinkedUserId(accountTablesOf(runtime), checked);
      if (winner !== undefined) return signInAs(winner, false);
    }
  }
}

/**
 * Finds or creates the identity's user and links it, in one transaction.
 * An existing user found by the verified email has its address proven in
 * that transaction (`proveAddressIn`): `claimed` says credentials made
 * before the proof were removed.
 */
async function linkIdentity(
  runtime: AuthRuntime,
  identity: CheckedIdentity,
  ip: string | undefined,
): Promise<{ userId: string; created: boolean; claimed: boolean }> {
  const { hasEmailVerified, profileFields } = runtime.users.require();
  const verifiedAt = isoSeconds(runtime.now());
  const address = identity.emailVerified
    ? (identity.email as string)
    : synthesizedEmail(identity.provider, identity.providerUserId);
  if (!identity.emailVerified && identity.email !== null) {
    if ((await runtime.users.findByField("email", identity.email)) !== null) {
      throw new AuthError("ACCOUNT_NOT_LINKED");
    }
  }
  const existing = await runtime.users.findByField("email", address);
  return runtime.store.frameworkTransaction(adminAuth, async (tx) => {
    let user = existing;
    let claimed = false;
    if (user === null) {
      // A new user starts with the provider's profile where the app
      // declares the fields; an existing one keeps what it has.
      user = await tx.entities.insert("User", {
        email: address,
        ...(identity.emailVerified && hasEmailVerified && { emailVerified: verifiedAt }),
        ...(profileFields.name !== undefined &&
          identity.name !== undefined && { [profileFields.name]: identity.name }),
        ...(profileFields.avatarUrl !== undefined &&
          identity.avatarUrl !== undefined && { [profileFields.avatarUrl]: identity.avatarUrl }),
      });
    } else if (identity.emailVerified) {
      const proof = { method: "oauth", provider: identity.provider, ip } as const;
      claimed = (await proveAddressIn(runtime, tx, user.id, proof)) !== null;
    }
    const accounts = accountTablesOf(runtime, tx.db);
    const at = runtime.now();
    await accounts
      .insertInto("svc_linked_accounts")
      .values({
        id: newRowId(),
        user_id: user.id,
        provider: identity.provider,
        provider_user_id: identity.providerUserId,
        email: identity.email,
        // Unix seconds, like every timestamp the export shows.
        created_at: Math.floor(at / 1000),
      })
      .execute();
    await recordAudit(accounts, {
      userId: user.id,
      kind: "AccountLink",
      at,
      data: { provider: identity.provider, email_verified: identity.emailVerified },
      ip,
    });
    return { userId: user.id, created: existing === null, claimed };
  });
}
