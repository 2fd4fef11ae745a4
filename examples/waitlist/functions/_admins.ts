import type { QueryContext } from "@svc/functions";

/**
 * Whether the caller is an admin of the waitlist: the admin token, or a
 * user with an `Admin` row (granted by `grantAdmin`). The `Admin` read
 * policy shows users only their own row, which is all this needs.
 */
export async function isWaitlistAdmin(ctx: Pick<QueryContext, "auth" | "db">): Promise<boolean> {
  if (ctx.auth.isAdmin) return true;
  if (ctx.auth.userId === null) return false;
  const rows = await ctx.db.query("Admin", { where: { userId: ctx.auth.userId }, limit: 1 });
  return rows.rows.length > 0;
}

/** Stops the function with `403 ADMIN_REQUIRED` unless the caller is an admin. */
export async function requireWaitlistAdmin(
  ctx: Pick<QueryContext, "auth" | "db" | "error">,
): Promise<void> {
  if (!(await isWaitlistAdmin(ctx))) {
    ctx.error("ADMIN_REQUIRED", "Only waitlist admins may do this.", 403);
  }
}
