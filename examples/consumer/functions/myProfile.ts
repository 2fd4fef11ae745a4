import { query } from "@svc/functions";
import { requireUserId } from "./_caller.js";

/** The caller's profile, or null before the first save. */
export default query({
  args: {},
  handler: async (ctx) => {
    const ownerId = requireUserId(ctx);
    const page = await ctx.db.query("Profile", { where: { ownerId }, limit: 1 });
    const profile = page.rows[0];
    if (profile === undefined) return null;
    return {
      id: profile.id,
      displayName: profile.displayName as string,
      bio: profile.bio as string | null,
    };
  },
});
