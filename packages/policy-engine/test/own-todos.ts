import type { PolicyDef } from "@svc/schema";

/** The plain owner policy on the fixture's Todo: each caller reads and changes their own rows. */
export const OWN_TODOS: PolicyDef = {
  name: "own todos",
  entity: "Todo",
  allowRead: "auth.userId == data.ownerId",
  allowInsert: "auth.userId != null",
  allowUpdate: "auth.userId == existing.ownerId",
  allowDelete: "auth.userId == existing.ownerId",
};
