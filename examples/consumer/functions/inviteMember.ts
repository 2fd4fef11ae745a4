import { mutation } from "@svc/functions";
import { z } from "zod";

/**
 * Invites an email address into an organization (owners only). The invited
 * user sees the invitation once signed in with that address and accepts it
 * with `acceptInvitation`; no email is sent by this template.
 */
export default mutation({
  args: {
    orgId: z.string(),
    // Trimmed and lower-cased: the form svc stores `User.email` in.
    email: z.string().trim().toLowerCase().max(254).pipe(z.email()),
    role: z.enum(["owner", "member"]).default("member"),
  },
  handler: async (ctx, args) => {
    await ctx.requireMember(args.orgId, { role: ["owner"] });
    const org = await ctx.db.get("Organization", args.orgId);
    if (org === null)
      return ctx.error("ORGANIZATION_NOT_FOUND", "No organization with that id.", 404);
    const email = args.email;
    const pending = await ctx.db.query("Invitation", {
      where: { orgId: args.orgId, email },
      limit: 1,
    });
    if (pending.rows.length > 0) {
      return ctx.error("ALREADY_INVITED", "That address already has an invitation.", 409);
    }
    // The invitee cannot read the organization before joining, so the
    // invitation carries its name.
    const invitation = await ctx.db.insert("Invitation", {
      orgId: args.orgId,
      orgName: org.name,
      email,
      role: args.role,
    });
    return { id: invitation.id, email, role: args.role };
  },
});
