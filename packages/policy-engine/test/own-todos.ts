import type { PolicyDef } from "@svc/schema";
import { ownTodosPolicy } from "@svc/tooling/manifests";

/** The plain owner policy on the fixture's Todo: each caller reads and changes their own rows. */
export const OWN_TODOS: PolicyDef = ownTodosPolicy();
