import { listEntity, ownTodosPolicy, todoEntity } from "@svc/tooling/manifests";
import { entity } from "../src/dsl-entity.js";
import { field } from "../src/dsl-field.js";

// The manifest of ARCHITECTURE.md, plus the `List` entity its `listId` points
// at (without it the example itself fails validation: unknown target entity).
export const architectureJSON = {
  manifest_version: 1,
  name: "todo",
  version: "0.1.0",
  auth: { trustedOrigins: ["http://localhost:5173"] },
  // A pair, not an array of either, so `entities[1]` is typed as the Todo with its index.
  entities: [
    listEntity(),
    { ...todoEntity(), indexes: [{ name: "by_owner", fields: ["ownerId"], unique: false }] },
  ] satisfies [object, object],
  policies: [ownTodosPolicy()],
  functions: "functions",
};

// The same two entities written with the DSL, for the suites that build the
// manifest from code (and infer types from it).
export const List = entity("List", { title: field.string() });
export const Todo = entity(
  "Todo",
  {
    title: field.string(),
    done: field.bool(),
    ownerId: field.string().owner(),
    listId: field.id("List").optional(),
    priority: field.enum(["low", "high"]),
    createdAt: field.datetime().defaultNow(),
  },
  { indexes: [{ name: "by_owner", fields: ["ownerId"] }] },
);
