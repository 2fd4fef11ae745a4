import { hook } from "@svc/functions";
import { MAX_NOTE_CHARS } from "./_entries.js";
import { lockPositions, recordPositions } from "./_positions.js";

/**
 * Adds the user to the waitlist when they delete their own `JoinRequest`
 * (what `joinWaitlist` does). A before-delete hook runs inside the
 * deleting transaction with the admin token's rights: it hands out the
 * next place from the `WaitlistCounter` row, and `WaitlistEntry` rows are
 * closed to user writes, so nobody can pick their own place in the line.
 *
 * The email comes from the user's own `User` row and must be verified:
 * anyone may register a password account for any address, so an
 * unverified address proves nothing. The note is checked again here
 * because the entity API can write a request directly. Not callable over
 * HTTP.
 */
export default hook({
  on: { delete: { entity: "JoinRequest" } },
  handler: async (ctx, { row }) => {
    const ownerId = String(row.ownerId);
    // Only the owner's own delete joins; the admin token may clear stray requests.
    if (ctx.auth.userId !== ownerId) return;
    const user = await ctx.db.get("User", ownerId);
    if (user === null) return ctx.error("USER_NOT_FOUND", "Sign in with your email first.", 404);
    if (typeof user.emailVerified !== "string") {
      return ctx.error("EMAIL_NOT_VERIFIED", "Verify your email address before joining.", 403);
    }
    const note = typeof row.note === "string" && row.note.trim() !== "" ? row.note.trim() : null;
    if (note !== null && note.length > MAX_NOTE_CHARS) {
      return ctx.error("NOTE_TOO_LONG", `A note holds at most ${MAX_NOTE_CHARS} characters.`, 400);
    }
    // Checked under the lock, so joining twice at once still writes one entry.
    const taken = await lockPositions(ctx.db);
    const mine = await ctx.db.query("WaitlistEntry", { where: { ownerId }, limit: 1 });
    if (mine.rows.length > 0) return; // already on the list: joining twice changes nothing
    const position = taken + 1;
    await ctx.db.insert("WaitlistEntry", {
      ownerId,
      email: String(user.email),
      note,
      status: "waiting",
      position,
    });
    await recordPositions(ctx.db, position);
  },
});
