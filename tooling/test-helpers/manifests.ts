// The entities of the specification's example app (a User as the spec
// describes it, a List, a Todo owned by its user) that many packages' tests
// declare. Plain data, fresh on every call (a test may change its copy), with
// literal field types, so each package checks it with its own manifest types;
// this package depends on no svc package.

/** The spec's User: a unique email and the optional `emailVerified` stamp. */
export function userEntity<const Extra extends readonly object[]>(...extraFields: Extra) {
  return {
    name: "User",
    fields: [
      { name: "email", type: "string" as const, unique: true },
      { name: "emailVerified", type: "string" as const, optional: true },
      ...extraFields,
    ],
  };
}

/** A List with a title: what a Todo's optional `listId` points at. */
export function listEntity() {
  return { name: "List", fields: [{ name: "title", type: "string" as const }] };
}

/**
 * The example's Todo: title, done, its owner, an optional list, a priority
 * and a creation time; `extraFields` come after those six.
 */
export function todoEntity<const Extra extends readonly object[]>(...extraFields: Extra) {
  return {
    name: "Todo",
    fields: [
      { name: "title", type: "string" as const },
      { name: "done", type: "bool" as const },
      { name: "ownerId", type: "string" as const, owner: true },
      { name: "listId", type: "id" as const, target: "List", optional: true },
      { name: "priority", type: "enum" as const, values: ["low", "high"] },
      { name: "createdAt", type: "datetime" as const, defaultNow: true },
      ...extraFields,
    ],
  };
}

/**
 * The example's policy on its Todo: a signed-in caller inserts, and each
 * caller reads, changes and deletes only the rows they own. The rules are in
 * the order the DSL writes them, so a test may compare serialized manifests.
 */
export function ownTodosPolicy() {
  return {
    name: "own todos",
    entity: "Todo",
    allowRead: "auth.userId == data.ownerId",
    allowInsert: "auth.userId != null",
    allowUpdate: "auth.userId == existing.ownerId",
    allowDelete: "auth.userId == existing.ownerId",
  };
}
