import type { Entity } from "./dsl-entity.js";
import {
  type ManifestInput,
  type OrgMembershipConfig,
  type PolicyDef,
  parseManifest,
  type RoomInput,
} from "./manifest.js";

/** The rules of one policy; each is a policy expression, absent meaning "denied". */
export interface PolicyRules {
  /** Shown in errors and the studio; must not be empty. */
  readonly name: string;
  /** Which rows a caller may read (`data` is the row). */
  readonly allowRead?: string;
  /** Whether a caller may insert a row (`data` is the new row). */
  readonly allowInsert?: string;
  /** Whether a caller may update a row (`existing` before, `data` after). */
  readonly allowUpdate?: string;
  /** Whether a caller may delete a row (`existing` is the row). */
  readonly allowDelete?: string;
}

const RULE_KEYS = ["allowRead", "allowInsert", "allowUpdate", "allowDelete"] as const;

/**
 * Declares a row policy on an entity; returns the manifest entry. Rules left
 * out are omitted, which denies that operation to everyone but the admin.
 *
 * @example
 * policy(Todo, {
 *   name: "own todos",
 *   allowRead: "auth.userId == data.ownerId",
 *   allowInsert: "auth.userId != null",
 * });
 */
export function policy(target: Entity, rules: PolicyRules): PolicyDef {
  const out: PolicyDef = { name: rules.name, entity: target.name };
  for (const key of RULE_KEYS) {
    const rule = rules[key];
    if (rule !== undefined) out[key] = rule;
  }
  return out;
}

/** What `defineApp` accepts: the manifest's top level, with DSL entities. */
export interface AppDefinition {
  /** The application's name. */
  readonly name: string;
  /** The application's version, free-form (semver recommended). */
  readonly version: string;
  /** Browser origins allowed to call the API with credentials (default: none). */
  readonly auth?: {
    readonly trustedOrigins?: readonly string[];
    /** Where memberships live (default `OrgMember {orgId, userId, role}`). */
    readonly org?: Partial<OrgMembershipConfig>;
  };
  /** Entities declared with `entity(...)` (default: none). */
  readonly entities?: readonly Entity[];
  /** Policies declared with `policy(...)` (default: none, so only the admin gets in). */
  readonly policies?: readonly PolicyDef[];
  /**
   * Realtime room kinds served at `/shard/<name>[/<key>]`, each with a `join`
   * policy expression over `auth.*`, `room.name` and `room.key` (default:
   * none, so no room can be joined).
   */
  readonly rooms?: readonly RoomInput[];
  /** Directory of server functions, relative to the manifest (default `"functions"`). */
  readonly functions?: string;
}

/**
 * Turns a DSL app into the plain manifest object — exactly what a
 * hand-written `svc.json` holds, with properties left at their defaults
 * omitted — after validating it with `parseManifest`, so a mistake fails
 * here with a `SchemaError` (code `INVALID_MANIFEST`) naming every problem.
 *
 * @example
 * export default defineApp({
 *   name: "todo",
 *   version: "0.1.0",
 *   entities: [Todo],
 *   policies: [policy(Todo, { name: "own todos", allowRead: "auth.userId == data.ownerId" })],
 * });
 */
export function defineApp(app: AppDefinition): ManifestInput {
  const manifest: ManifestInput = { manifest_version: 1, name: app.name, version: app.version };
  if (app.auth !== undefined) {
    manifest.auth = {
      ...(app.auth.trustedOrigins !== undefined && {
        trustedOrigins: [...app.auth.trustedOrigins],
      }),
      ...(app.auth.org !== undefined && { org: { ...app.auth.org } }),
    };
  }
  if (app.entities !== undefined) manifest.entities = app.entities.map((e) => e.toEntity());
  if (app.policies !== undefined) manifest.policies = app.policies.map((p) => ({ ...p }));
  if (app.rooms !== undefined) manifest.rooms = app.rooms.map((r) => ({ ...r }));
  if (app.functions !== undefined) manifest.functions = app.functions;
  parseManifest(manifest);
  return manifest;
}
