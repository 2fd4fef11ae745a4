import { mutation } from "@svc/functions";
import { z } from "zod";

/** Adds a project to the caller's active organization (selected with `auth.selectOrg`). */
export default mutation({
  args: { name: z.string().trim().min(1).max(120) },
  handler: async (ctx, args) => {
    const orgId = ctx.auth.tenantId;
    if (orgId === null) {
      return ctx.error("NO_ACTIVE_ORGANIZATION", "Select an organization first.", 409);
    }
    const project = await ctx.db.insert("Project", { orgId, name: args.name });
    return { id: project.id, orgId, name: args.name };
  },
});
