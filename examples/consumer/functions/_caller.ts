import type { BaseContext } from "@svc/functions";

/**
 * The caller's user id. Every function here acts for a signed-in user: the
 * admin token (no user id) has nothing to save, join or own.
 */
export function requireUserId(ctx: BaseContext): string {
  const userId = ctx.auth.userId;
  if (userId === null) return ctx.error("USER_REQUIRED", "Sign in as a user to do this.", 403);
  return userId;
}
