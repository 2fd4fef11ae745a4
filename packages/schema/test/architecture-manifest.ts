// The manifest of ARCHITECTURE.md, plus the `List` entity its `listId` points
// at (without it the example itself fails validation: unknown target entity).
export const architectureJSON = {
  manifest_version: 1,
  name: "todo",
  version: "0.1.0",
  auth: { trustedOrigins: ["http://localhost:5173"] },
  entities: [
    { name: "List", fields: [{ name: "title", type: "string" }] },
    {
      name: "Todo",
      fields: [
        { name: "title", type: "string" },
        { name: "done", type: "bool" },
        { name: "ownerId", type: "string", owner: true },
        { name: "listId", type: "id", target: "List", optional: true },
        { name: "priority", type: "enum", values: ["low", "high"] },
        { name: "createdAt", type: "datetime", defaultNow: true },
      ],
      indexes: [{ name: "by_owner", fields: ["ownerId"], unique: false }],
    },
  ],
  policies: [
    {
      name: "own todos",
      entity: "Todo",
      allowRead: "auth.userId == data.ownerId",
      allowInsert: "auth.userId != null",
      allowUpdate: "auth.userId == existing.ownerId",
      allowDelete: "auth.userId == existing.ownerId",
    },
  ],
  functions: "functions",
};
