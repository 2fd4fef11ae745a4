import { type Manifest, type PolicyDef, parseManifest } from "@svc/schema";

/** The fixed schema every test in this package compiles its policies against. */
export const fixtureEntities = [
  {
    name: "List",
    fields: [
      { name: "title", type: "string" },
      { name: "ownerId", type: "string", owner: true },
      { name: "tenantId", type: "string", optional: true },
      { name: "archived", type: "bool" },
    ],
  },
  {
    name: "Todo",
    fields: [
      { name: "title", type: "string" },
      { name: "done", type: "bool" },
      { name: "ownerId", type: "string", owner: true },
      { name: "listId", type: "id", target: "List", optional: true },
      { name: "priority", type: "enum", values: ["low", "high"] },
      { name: "createdAt", type: "datetime" },
      { name: "dueAt", type: "datetime", optional: true },
      { name: "rank", type: "int", optional: true },
      { name: "score", type: "float", optional: true },
      { name: "note", type: "string", optional: true },
      { name: "flag", type: "bool", optional: true },
      { name: "meta", type: "json", optional: true },
    ],
  },
  {
    name: "Member",
    fields: [
      { name: "userId", type: "string" },
      { name: "listId", type: "id", target: "List" },
      { name: "role", type: "enum", values: ["viewer", "editor"] },
    ],
  },
  { name: "Secret", fields: [{ name: "value", type: "string" }] },
] as const;

/** The fixture manifest with the given policies. */
export function fixtureManifest(policies: readonly PolicyDef[] = []): Manifest {
  return parseManifest({
    manifest_version: 1,
    name: "fixture",
    version: "0.0.0",
    entities: fixtureEntities,
    policies,
  });
}

/** The fixture manifest with one policy on `entity` holding one rule. */
export function manifestWithRule(
  rule: string,
  action: "allowRead" | "allowInsert" | "allowUpdate" | "allowDelete" = "allowRead",
  entity = "Todo",
): Manifest {
  return fixtureManifest([{ name: "p", entity, [action]: rule }]);
}
