import { mutation } from "@svc/functions";
import { z } from "zod";
import { MAX_NOTE_CHARS, toEntryView } from "./_entries.js";

/**
 * Puts the signed-in caller on the waitlist, once: a second call answers
 * the entry they already have (`joined: false`) and changes nothing. Only
 * an address the caller proved they own counts (`EMAIL_NOT_VERIFIED`
 * otherwise): a magic-code sign-in proves it; a password account must
 * verify its email first.
 *
 * `WaitlistEntry` rows are written only by the hook in `admitToWaitlist.ts`,
 * which runs with the admin's rights when a `JoinRequest` is deleted; this
 * mutation files a request and deletes it in the same transaction.
 */
export default mutation({
  args: { note: z.string().trim().max(MAX_NOTE_CHARS).optional() },
  handler: async (ctx, args) => {
    const ownerId = ctx.auth.userId;
    if (ownerId === null) return ctx.error("USER_REQUIRED", "Sign in to join the waitlist.", 403);
    const existing = await ctx.db.query("WaitlistEntry", { where: { ownerId }, limit: 1 });
    const found = existing.rows[0];
    if (found !== undefined) return { joined: false, entry: toEntryView(found) };

    const note = args.note === undefined || args.note === "" ? null : args.note;
    const request = await ctx.db.insert("JoinRequest", { note });
    await ctx.db.delete("JoinRequest", request.id);
    const added = await ctx.db.query("WaitlistEntry", { where: { ownerId }, limit: 1 });
    const entry = added.rows[0];
    if (entry === undefined) return ctx.error("JOIN_FAILED", "The entry was not written.", 500);
    return { joined: true, entry: toEntryView(entry) };
  },
});
