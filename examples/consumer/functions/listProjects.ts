import { query } from "@svc/functions";

/**
 * The projects of the caller's active organization, oldest first. The
 * Project policy alone decides what is visible (`auth.tenantId ==
 * data.orgId`); this query only orders them.
 */
export default query({
  args: {},
  handler: async (ctx) => {
    const page = await ctx.db.query("Project", {
      orderBy: { field: "createdAt", direction: "asc" },
      limit: 500,
    });
    return {
      orgId: ctx.auth.tenantId,
      projects: page.rows.map((row) => ({ id: row.id, name: row.name as string })),
    };
  },
});
