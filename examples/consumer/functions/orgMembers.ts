import { query } from "@svc/functions";
import { z } from "zod";

/** The members of an organization the caller belongs to, with their profile names. */
export default query({
  args: { orgId: z.string() },
  handler: async (ctx, args) => {
    await ctx.requireMember(args.orgId);
    const memberships = await ctx.db.query("OrgMember", {
      where: { orgId: args.orgId },
      orderBy: { field: "joinedAt", direction: "asc" },
      limit: 500,
    });
    const members = [];
    for (const membership of memberships.rows) {
      const userId = membership.userId as string;
      const profile = await ctx.db.query("Profile", { where: { ownerId: userId }, limit: 1 });
      members.push({
        userId,
        role: membership.role as string,
        displayName: (profile.rows[0]?.displayName as string | undefined) ?? null,
      });
    }
    return { members };
  },
});
