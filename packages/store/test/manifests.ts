import type { EntityInput, ManifestInput } from "@svc/schema";

/** A test manifest at version 1 named `name`, with `entities` and whatever `rest` adds (policies, …). */
export function testManifest(
  name: string,
  entities: EntityInput[],
  rest: Omit<ManifestInput, "manifest_version" | "name" | "version" | "entities"> = {},
): ManifestInput & { entities: EntityInput[] } {
  return { manifest_version: 1, name, version: "1", entities, ...rest };
}

/** Members of an organization, with a role, and the organization's projects. */
export const orgEntities: EntityInput[] = [
  {
    name: "OrgMember",
    fields: [
      { name: "orgId", type: "string" },
      { name: "userId", type: "string" },
      { name: "role", type: "enum", values: ["member", "admin"] },
    ],
  },
  {
    name: "Project",
    fields: [
      { name: "orgId", type: "string" },
      { name: "name", type: "string" },
    ],
  },
];

/** A project is read by the members of its organization: a rule that looks a row up. */
export const MEMBERS_OF_PROJECT_ORG =
  "exists(OrgMember where orgId == data.orgId && userId == auth.userId)";
