import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TRUSTED_ORIGIN } from "./auth-fixtures.js";

// The apps the server tests write into temp directories: a manifest that
// signs users in (the trusted origin and a User entity) plus the test's
// own entities, policies and rooms, and function files beside it.

/** A field of a manifest entity, as the manifest's JSON spells it. */
export type ManifestField = Readonly<Record<string, unknown>>;

/** What a test app declares besides sign-in; any other manifest key passes through. */
export interface SignInAppParts {
  readonly entities?: readonly unknown[];
  /** Fields the User entity has after `email` and `emailVerified`. */
  readonly userFields?: readonly ManifestField[];
  readonly [key: string]: unknown;
}

/** The User entity sign-in needs, with `extraFields` after its own. */
export function userEntity(extraFields: readonly ManifestField[] = []) {
  return {
    name: "User",
    fields: [
      { name: "email", type: "string", unique: true },
      { name: "emailVerified", type: "string", optional: true },
      ...extraFields,
    ],
  };
}

/** A manifest named `name` that signs users in from `TRUSTED_ORIGIN`; User comes first among the entities. */
export function signInManifest(
  name: string,
  { entities = [], userFields, ...rest }: SignInAppParts = {},
): Record<string, unknown> {
  return {
    manifest_version: 1,
    name,
    version: "1",
    auth: { trustedOrigins: [TRUSTED_ORIGIN] },
    ...rest,
    entities: [userEntity(userFields), ...entities],
  };
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
