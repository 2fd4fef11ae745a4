import { describe, expect, it } from "vitest";
import { defineApp } from "./dsl-app.js";
import { entity } from "./dsl-entity.js";
import { field } from "./dsl-field.js";
import { SchemaError } from "./errors.js";
import { type ManifestInput, orgMembershipOf, parseManifest } from "./manifest.js";

const members = {
  name: "Member",
  fields: [
    { name: "team", type: "string" },
    { name: "person", type: "string" },
    { name: "level", type: "enum", values: ["owner", "viewer"] },
  ],
} as const;

function manifest(org?: Record<string, string>): ManifestInput {
  return {
    manifest_version: 1,
    name: "orgs",
    version: "1",
    entities: [members as never],
    ...(org !== undefined && { auth: { org } }),
  };
}

describe("auth.org", () => {
  it("defaults to OrgMember {orgId, userId, role}", () => {
    expect(orgMembershipOf(parseManifest(manifest()))).toEqual({
      entity: "OrgMember",
      orgField: "orgId",
      userField: "userId",
      roleField: "role",
    });
  });

  it("names another entity and fields", () => {
    const org = { entity: "Member", orgField: "team", userField: "person", roleField: "level" };
    expect(orgMembershipOf(parseManifest(manifest(org)))).toEqual(org);
  });

  it.each([
    [{ entity: "Nope" }, "auth.org.entity"],
    [{ entity: "Member", orgField: "team", userField: "missing" }, "auth.org.userField"],
    [{ entity: "Member", orgField: "team", userField: "person" }, "auth.org.roleField"],
  ])("refuses %j, naming %s", (org, path) => {
    try {
      parseManifest(manifest(org));
      expect.unreachable("the manifest should be refused");
    } catch (error) {
      expect(error).toBeInstanceOf(SchemaError);
      expect((error as SchemaError).issues.map((issue) => issue.path)).toContain(path);
    }
  });

  it("is carried by defineApp", () => {
    const Member = entity("Member", {
      team: field.string(),
      person: field.string(),
      level: field.enum(["owner", "viewer"]),
    });
    const app = defineApp({
      name: "orgs",
      version: "1",
      auth: {
        org: { entity: "Member", orgField: "team", userField: "person", roleField: "level" },
      },
      entities: [Member],
    });
    expect(app.auth).toEqual({
      org: { entity: "Member", orgField: "team", userField: "person", roleField: "level" },
    });
  });
});
