import { mutation } from "@svc/functions";
import { z } from "zod";
import { requireUserId } from "./_caller.js";

/** Creates an organization with the caller as its first owner, in one transaction. */
export default mutation({
  args: { name: z.string().trim().min(1).max(100) },
  handler: async (ctx, args) => {
    const userId = requireUserId(ctx);
    if (ctx.auth.isGuest)
      return ctx.error("USER_REQUIRED", "Guests cannot own organizations.", 403);
    const org = await ctx.db.insert("Organization", { name: args.name });
    await ctx.db.insert("OrgMember", { orgId: org.id, userId, role: "owner" });
    return { id: org.id, name: args.name };
  },
});
