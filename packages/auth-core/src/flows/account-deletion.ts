import { type AuthContext, createAuthContext } from "@svc/schema";
import { StoreError } from "@svc/store";
import type { ApiKeys } from "../api-keys.js";
import { recordAudit } from "../audit.js";
import { type AuthRuntime, accountTablesOf, tablesOf } from "../auth-runtime.js";
import { requireRealSession } from "../real-session.js";
import { deleteSession, deleteUserSessions } from "../session-store.js";
import type { Totp } from "../totp/create-totp.js";

/** What `DELETE /api/auth/account` answers. */
export interface AccountDeleted {
  readonly deleted: true;
  readonly revoked_sessions: number;
  readonly revoked_api_keys: number;
  readonly unlinked_accounts: number;
}

/**
 * The storage's refusal to delete the `User` row (another row still
 * references it): 400 with the storage's own code, as the spec says.
 */
export class AccountDeletionRefused extends Error {
  override readonly name = "AccountDeletionRefused";
  readonly code: string;
  readonly status = 400;
  readonly expose = true as const;

  constructor(cause: StoreError) {
    super(`The account cannot be deleted: ${cause.message}`, { cause });
    this.code = cause.code;
  }
}

/**
 * `DELETE /api/auth/account`: the spec's sequence, in one transaction and in
 * this order: revoke every session (the current one first), every API key,
 * unlink every external account, revoke every trusted device (and drop the
 * password and the TOTP secret, backup codes and challenges), write the `AccountDelete` audit event with the counts (it
 * outlives the user), then delete the `User` row through the store, so the
 * application's own rules and change events apply. Anything failing rolls
 * all of it back. No password or second factor is asked for again.
 */
export async function deleteAccount(
  runtime: AuthRuntime,
  credentials: { apiKeys: ApiKeys; totp: Totp },
  auth: AuthContext,
  ip: string | undefined,
): Promise<AccountDeleted> {
  const { userId, sessionId } = requireRealSession(auth);
  try {
    // Admin rights (the User row's policy need not allow deletion), with the
    // user's identity kept, so delete hooks see who is leaving.
    const caller = createAuthContext({ ...auth, isAdmin: true });
    return await runtime.store.frameworkTransaction(caller, async (tx) => {
      const sessions = tablesOf(runtime, tx.db);
      const accounts = accountTablesOf(runtime, tx.db);
      const current = (await deleteSession(sessions, sessionId)) ? 1 : 0;
      const revokedSessions = current + (await deleteUserSessions(sessions, userId));
      const revokedApiKeys = await credentials.apiKeys.deleteForUser(sessions, userId);
      const unlinked = await accounts
        .deleteFrom("svc_linked_accounts")
        .where("user_id", "=", userId)
        .executeTakeFirst();
      const devices = await sessions
        .deleteFrom("svc_trusted_device")
        .where("user_id", "=", userId)
        .executeTakeFirst();
      await accounts.deleteFrom("svc_passwords").where("user_id", "=", userId).execute();
      await credentials.totp.deleteForUser(tx.db, userId);
      const counts = {
        sessions: revokedSessions,
        api_keys: revokedApiKeys,
        linked_accounts: Number(unlinked.numDeletedRows),
        trusted_devices: Number(devices.numDeletedRows),
      };
      await recordAudit(accounts, {
        userId,
        kind: "AccountDelete",
        at: runtime.now(),
        data: counts,
        ip,
      });
      if (runtime.users.exists() && (await tx.entities.get("User", userId)) !== null) {
        await tx.entities.delete("User", userId);
      }
      return {
        deleted: true,
        revoked_sessions: counts.sessions,
        revoked_api_keys: counts.api_keys,
        unlinked_accounts: counts.linked_accounts,
      };
    });
  } catch (error) {
    if (error instanceof StoreError && error.status !== undefined && error.status < 500) {
      throw new AccountDeletionRefused(error);
    }
    throw error;
  }
}
