import { hook } from "@svc/functions";

/** How often a join retries after another join took the same position at the same moment. */
const POSITION_ATTEMPTS = 5;

/**
 * Adds the user to the waitlist when they delete their own `JoinRequest`
 * (what `joinWaitlist` does). A before-delete hook runs inside the
 * deleting transaction with the admin token's rights: it must see the
 * whole list to hand out the next position, and `WaitlistEntry` rows are
 * closed to user writes, so nobody can pick their own place in the line.
 * The email comes from the user's own `User` row. Not callable over HTTP.
 */
export default hook({
  on: { delete: { entity: "JoinRequest" } },
  handler: async (ctx, { row }) => {
    const ownerId = String(row.ownerId);
    // Only the owner's own delete joins; the admin token may clear stray requests.
    if (ctx.auth.userId !== ownerId) return;
    const user = await ctx.db.get("User", ownerId);
    if (user === null) return ctx.error("USER_NOT_FOUND", "Sign in with your email first.", 404);
    for (let attempt = 1; attempt <= POSITION_ATTEMPTS; attempt++) {
      const mine = await ctx.db.query("WaitlistEntry", { where: { ownerId }, limit: 1 });
      if (mine.rows.length > 0) return; // already on the list: joining twice changes nothing
      const last = await ctx.db.query("WaitlistEntry", {
        orderBy: { field: "position", direction: "desc" },
        limit: 1,
      });
      try {
        await ctx.db.insert("WaitlistEntry", {
          ownerId,
          email: String(user.email),
          note: typeof row.note === "string" ? row.note : null,
          status: "waiting",
          position: Number(last.rows[0]?.position ?? 0) + 1,
        });
        return;
      } catch (error) {
        // A concurrent join took this position (or this user joined twice at
        // once): read again; the loop ends on the user's entry or a fresh position.
        if ((error as { code?: unknown }).code !== "UNIQUE_VIOLATION") throw error;
      }
    }
    return ctx.error("WAITLIST_BUSY", "Too many people are joining at once; try again.", 503);
  },
});
