import type { Entity, InferRow } from "./dsl-entity.js";
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

/**
 * What `defineApp` accepts: the manifest's top level, with DSL entities.
 * `TEntities` is the tuple of entities, inferred by `defineApp`.
 */
export interface AppDefinition<TEntities extends readonly Entity[] = readonly Entity[]> {
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
  readonly entities?: TEntities;
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
 * What `defineApp` returns: the plain manifest object (a valid
 * `ManifestInput` at runtime, nothing more) whose type also carries the
 * entities' row types, read back with `InferEntities<typeof app>`.
 */
export type AppManifest<TEntities extends readonly Entity[] = readonly Entity[]> = ManifestInput & {
  /** Type-only carrier of the entities; never present at runtime. */
  readonly "~types"?: { readonly entities: TEntities };
};

/**
 * The rows of an app made by `defineApp`, by entity name: `InferRow` of each
 * entity (`id` plus every field, optional ones as `T | null`).
 *
 * @example
 * const app = defineApp({ name: "todo", version: "1", entities: [Todo] });
 * type Rows = InferEntities<typeof app>; // { Todo: { id: string; title: string; ... } }
 */
export type InferEntities<TApp extends AppManifest> = NonNullable<
  TApp["~types"]
>["entities"] extends infer TEntities extends readonly Entity[]
  ? { [TEntity in TEntities[number] as TEntity["name"]]: InferRow<TEntity> }
  : never;

/**
 * Each entity's fields without `id`, by entity name: the `entities` half of
 * the `Api` type `createClient<Api>()` from @svc/client takes (every row
 * there gets its `id` added back).
 *
 * @example
 * type Entities = InferEntityFields<typeof app>; // { Todo: { title: string; ... } }
 */
export type InferEntityFields<TApp extends AppManifest> = {
  [TName in keyof InferEntities<TApp>]: Omit<InferEntities<TApp>[TName], "id">;
};

/**
 * Turns a DSL app into the plain manifest object — exactly what a
 * hand-written `svc.json` holds, with properties left at their defaults
 * omitted — after validating it with `parseManifest`, so a mistake fails
 * here with a `SchemaError` (code `INVALID_MANIFEST`) naming every problem.
 * Its type also carries the entities' row types (`InferEntities`).
 *
 * @example
 * export default defineApp({
 *   name: "todo",
 *   version: "0.1.0",
 *   entities: [Todo],
 *   policies: [policy(Todo, { name: "own todos", allowRead: "auth.userId == data.ownerId" })],
 * });
 */
export function defineApp<const TEntities extends readonly Entity[] = readonly []>(
  app: AppDefinition<TEntities>,
): AppManifest<TEntities> {
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
