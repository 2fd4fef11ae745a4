import { mutation } from "@svc/functions";
import { z } from "zod";
import { CHANNEL_NAME_PATTERN, MAX_CHANNEL_NAME_LENGTH } from "./_limits.js";

/** The store's answer to a write that would break a unique field. */
function isUniqueViolation(error: unknown): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as { code?: unknown }).code === "UNIQUE_VIOLATION"
  );
}

/**
 * Creates a channel and returns it. Names are lower-case words joined by
 * dashes (`general`, `release-notes`), unique across the app.
 */
export default mutation({
  args: {
    name: z
      .string()
      .trim()
      .toLowerCase()
      .max(MAX_CHANNEL_NAME_LENGTH)
      .regex(CHANNEL_NAME_PATTERN, "Use letters, digits and single dashes."),
  },
  handler: async (ctx, args) => {
    const taken = await ctx.db.query("Channel", { where: { name: args.name }, limit: 1 });
    if (taken.rows.length > 0) ctx.error("CHANNEL_EXISTS", "A channel with that name exists.", 409);
    try {
      const channel = await ctx.db.insert("Channel", { name: args.name });
      return { id: channel.id, name: args.name };
    } catch (error) {
      // Two callers raced for the name: the unique index let one in.
      if (isUniqueViolation(error))
        ctx.error("CHANNEL_EXISTS", "A channel with that name exists.", 409);
      throw error;
    }
  },
});
