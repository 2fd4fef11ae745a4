import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TRUSTED_ORIGIN } from "./auth-fixtures.js";

// The apps the server tests write into temp directories: a manifest that
// signs users in (the trusted origin and a User entity) plus the test's
// own entities, policies and rooms, and function files beside it.

/** A field after its name: its type alone, or its type with the field's options. */
export type FieldSpec = string | Readonly<{ type: string; [option: string]: unknown }>;

/** A manifest entity from its fields in order, each name to its type (or type and options). */
export function entity(name: string, fields: Readonly<Record<string, FieldSpec>>) {
  return {
    name,
    fields: Object.entries(fields).map(([field, spec]) =>
      typeof spec === "string" ? { name: field, type: spec } : { name: field, ...spec },
    ),
  };
}

/** The owner field: the server stamps it with the writer's user id. */
export const OWNER = { type: "string", owner: true } as const;

/**
 * A policy that lets any signed-in user insert `entity` rows and read only
 * their own (by the OWNER field `ownerId`); with `edits`, update and delete
 * only their own too.
 */
export function ownRowsPolicy(name: string, entity: string, options: { edits?: boolean } = {}) {
  return {
    name,
    entity,
    allowRead: "auth.userId == data.ownerId",
    allowInsert: "auth.userId != null",
    ...(options.edits === true && {
      allowUpdate: "auth.userId == existing.ownerId",
      allowDelete: "auth.userId == existing.ownerId",
    }),
  };
}

/** What a test app declares; any manifest key passes through. */
export interface AppParts {
  readonly entities?: readonly unknown[];
  readonly [key: string]: unknown;
}

/** A manifest named `name` whose auth trusts `TRUSTED_ORIGIN`, with the app's own parts. */
export function testManifest(name: string, parts: AppParts = {}): Record<string, unknown> {
  return {
    manifest_version: 1,
    name,
    version: "1",
    auth: { trustedOrigins: [TRUSTED_ORIGIN] },
    ...parts,
  };
}

/** The User entity sign-in needs, with `extraFields` after its own. */
export function userEntity(extraFields: Readonly<Record<string, FieldSpec>> = {}) {
  return entity("User", {
    email: { type: "string", unique: true },
    emailVerified: { type: "string", optional: true },
    ...extraFields,
  });
}

/** A {@link testManifest} that signs users in: User (with any `userFields`) comes first among the entities. */
export function signInManifest(
  name: string,
  {
    entities = [],
    userFields,
    ...rest
  }: AppParts & { readonly userFields?: Readonly<Record<string, FieldSpec>> } = {},
): Record<string, unknown> {
  return testManifest(name, { ...rest, entities: [userEntity(userFields), ...entities] });
}

/**
 * Writes `manifest` as `dir/svc.json` and each function (name to module
 * source) as `dir/functions/<name>.mjs`. Returns the manifest's path, for
 * SVC_MANIFEST.
 */
export function writeTestApp(
  dir: string,
  manifest: unknown,
  functions: Readonly<Record<string, string>> = {},
): string {
  writeFileSync(join(dir, "svc.json"), JSON.stringify(manifest));
  mkdirSync(join(dir, "functions"));
  for (const [name, source] of Object.entries(functions)) {
    writeFileSync(join(dir, "functions", `${name}.mjs`), source);
  }
  return join(dir, "svc.json");
}
