import { mutation } from "@svc/functions";
import { z } from "zod";
import { requireWaitlistAdmin } from "./_admins.js";
import { toEntryView } from "./_entries.js";

/** Admins only: marks an entry invited (inviting twice keeps the first time). */
export default mutation({
  args: { id: z.string() },
  handler: async (ctx, args) => {
    await requireWaitlistAdmin(ctx);
    const entry = await ctx.db.get("WaitlistEntry", args.id);
    if (entry === null) return ctx.error("ENTRY_NOT_FOUND", "No waitlist entry with that id.", 404);
    if (entry.status === "invited") return toEntryView(entry);
    const invited = await ctx.db.update("WaitlistEntry", entry.id, {
      status: "invited",
      invitedAt: new Date().toISOString(),
    });
    return toEntryView(invited);
  },
});
