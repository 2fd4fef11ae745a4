import { z } from "zod";
import { SchemaError } from "./errors.js";
import { describeIssues, didYouMean, formatIssues } from "./manifest-issues.js";

// Identifier rules keep every name usable as a quoted SQL identifier on both
// dialects (Postgres truncates identifiers past 63 bytes).
const ENTITY_NAME = /^[A-Z][A-Za-z0-9]*$/;
const FIELD_NAME = /^[a-z][A-Za-z0-9_]*$/;
const INDEX_NAME = /^[a-z][A-Za-z0-9_]*$/;
const MAX_IDENTIFIER = 63;

const entityName = z
  .string()
  .max(MAX_IDENTIFIER)
  .regex(ENTITY_NAME, "must start with an upper-case letter and hold only letters and digits");
const fieldName = z
  .string()
  .max(MAX_IDENTIFIER)
  .regex(FIELD_NAME, "must start with a lower-case letter and hold only letters, digits and _")
  .refine((name) => name !== "id", "`id` is reserved for the record id");

const fieldBase = {
  name: fieldName,
  optional: z.boolean().default(false),
  unique: z.boolean().default(false),
};

/** The largest `maxBytes` a field may declare: 64 MiB (the server's largest request body). */
export const MAX_DECLARED_FIELD_BYTES = 64 * 1024 * 1024;

/**
 * The largest size of one value of the field, in bytes of UTF-8 (a json
 * field: of its JSON text). Unset: the store's default (`maxFieldBytes`).
 */
const maxBytes = z.number().int().min(1).max(MAX_DECLARED_FIELD_BYTES).optional();

const stringField = z.strictObject({
  ...fieldBase,
  type: z.literal("string"),
  owner: z.boolean().default(false),
  maxBytes,
});
const intField = z.strictObject({ ...fieldBase, type: z.literal("int") });
const floatField = z.strictObject({ ...fieldBase, type: z.literal("float") });
const boolField = z.strictObject({ ...fieldBase, type: z.literal("bool") });
const jsonField = z.strictObject({ ...fieldBase, type: z.literal("json"), maxBytes });
const datetimeField = z.strictObject({
  ...fieldBase,
  type: z.literal("datetime"),
  defaultNow: z.boolean().default(false),
});
const idField = z.strictObject({ ...fieldBase, type: z.literal("id"), target: entityName });
/**
 * A stored file (see @svc/files): the value is the file's id, 40 lowercase
 * hex characters, like a record id. The store checks the shape; the files
 * package checks that the file exists and who may attach it.
 */
const fileField = z.strictObject({ ...fieldBase, type: z.literal("file") });
const enumField = z.strictObject({
  ...fieldBase,
  type: z.literal("enum"),
  values: z
    .array(z.string().min(1))
    .min(1, "an enum needs at least one value")
    .refine((values) => new Set(values).size === values.length, "enum values must be distinct"),
});

// The kinds live in their own module, which the issue wording reads too.
export { type FieldKind, fieldKinds } from "./field-kinds.js";

export const fieldSchema = z.discriminatedUnion("type", [
  stringField,
  intField,
  floatField,
  boolField,
  datetimeField,
  jsonField,
  idField,
  enumField,
  fileField,
]);

export const indexSchema = z.strictObject({
  name: z.string().max(MAX_IDENTIFIER).regex(INDEX_NAME, "must be a lower-case identifier"),
  fields: z.array(z.string()).min(1, "an index needs at least one field"),
  unique: z.boolean().default(false),
});

export const entitySchema = z.strictObject({
  name: entityName,
  fields: z.array(fieldSchema),
  indexes: z.array(indexSchema).default([]),
});

export const policySchema = z.strictObject({
  name: z.string().min(1),
  entity: z.string(),
  allowRead: z.string().optional(),
  allowInsert: z.string().optional(),
  allowUpdate: z.string().optional(),
  allowDelete: z.string().optional(),
});

/** A room kind: a URL segment of `/shard/<name>`, letters, digits, `_` and `-`. */
const ROOM_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** Default bound of one room instance's members. */
export const DEFAULT_ROOM_MAX_MEMBERS = 100;

/**
 * A realtime room kind served at `/shard/<name>` or `/shard/<name>/<key>`.
 * `join` is a policy expression over `auth.*`, `room.name` and `room.key`
 * (null without a key) that admits a caller; `maxMembers` bounds one room
 * instance (default 100); `tickMs` is the rate of the room logic's `onTick`.
 * A kind the manifest does not declare cannot be joined.
 */
export const roomSchema = z.strictObject({
  name: z
    .string()
    .regex(
      ROOM_NAME,
      "must start with a letter and hold only letters, digits, _ and - (at most 64 characters)",
    ),
  join: z.string().min(1, "a room needs a join rule"),
  maxMembers: z.number().int().min(1).max(100_000).default(DEFAULT_ROOM_MAX_MEMBERS),
  tickMs: z.number().int().min(10).max(3_600_000).optional(),
});

/**
 * Where organization memberships live: an entity with an organization field,
 * a user field and a role field, one row per (organization, user, role).
 * `ctx.requireMember`, `POST /api/auth/orgs/select` and the caller's
 * `auth.roles` all read it. Default: `OrgMember {orgId, userId, role}`.
 */
export const orgMembershipSchema = z.strictObject({
  entity: z.string().min(1).default("OrgMember"),
  orgField: z.string().min(1).default("orgId"),
  userField: z.string().min(1).default("userId"),
  roleField: z.string().min(1).default("role"),
});

/** See `orgMembershipSchema`. */
export type OrgMembershipConfig = z.infer<typeof orgMembershipSchema>;

/** The membership model of a manifest, with the defaults filled in. */
export function orgMembershipOf(manifest: Manifest): OrgMembershipConfig {
  return orgMembershipSchema.parse(manifest.auth.org ?? {});
}

const manifestObject = z.strictObject({
  manifest_version: z.literal(1),
  name: z.string().min(1),
  version: z.string().min(1),
  auth: z
    .strictObject({
      trustedOrigins: z.array(z.string()).default([]),
      org: orgMembershipSchema.optional(),
    })
    .default({ trustedOrigins: [] }),
  entities: z.array(entitySchema).default([]),
  policies: z.array(policySchema).default([]),
  rooms: z.array(roomSchema).default([]),
  functions: z.string().min(1).default("functions"),
});

export const manifestSchema = manifestObject.superRefine(checkReferences);

/** A validated manifest, with every default filled in. */
export type Manifest = z.infer<typeof manifestSchema>;
/** The manifest as an author may write it (defaults still optional). */
export type ManifestInput = z.input<typeof manifestSchema>;
export type EntityDef = z.infer<typeof entitySchema>;
export type FieldDef = z.infer<typeof fieldSchema>;
export type IndexDef = z.infer<typeof indexSchema>;
export type PolicyDef = z.infer<typeof policySchema>;
/** A room kind (see `roomSchema`), defaults filled in. */
export type RoomDef = z.infer<typeof roomSchema>;
/** A room kind as an author may write it (`maxMembers` optional). */
export type RoomInput = z.input<typeof roomSchema>;

/** Checks that need the whole manifest: names, targets, owners, index fields. */
/** A membership model the manifest names explicitly must point at a declared entity and fields. */
function checkOrgMembership(m: z.infer<typeof manifestObject>, ctx: z.RefinementCtx): void {
  const org = m.auth.org;
  if (org === undefined) return;
  const entity = m.entities.find((candidate) => candidate.name === org.entity);
  if (entity === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["auth", "org", "entity"],
      message: `auth.org names entity ${org.entity}, which the manifest does not declare${didYouMean(
        org.entity,
        m.entities.map((candidate) => candidate.name),
      )}`,
    });
    return;
  }
  for (const key of ["orgField", "userField", "roleField"] as const) {
    const field = entity.fields.find((candidate) => candidate.name === org[key]);
    if (
      field === undefined ||
      (field.type !== "string" && field.type !== "id" && field.type !== "enum")
    ) {
      ctx.addIssue({
        code: "custom",
        path: ["auth", "org", key],
        message: `${org.entity} has no string, id or enum field named ${org[key]}${didYouMean(
          org[key],
          entity.fields.map((candidate) => candidate.name),
        )}`,
      });
    }
  }
}

function checkReferences(m: z.infer<typeof manifestObject>, ctx: z.RefinementCtx): void {
  checkOrgMembership(m, ctx);
  const entityNames = new Set<string>();
  m.entities.forEach((entity, e) => {
    if (entityNames.has(entity.name)) {
      ctx.addIssue({
        code: "custom",
        path: ["entities", e, "name"],
        message: `duplicate entity name ${entity.name}`,
      });
    }
    entityNames.add(entity.name);
    const fieldNames = new Set<string>();
    let owners = 0;
    entity.fields.forEach((field, f) => {
      if (fieldNames.has(field.name)) {
        ctx.addIssue({
          code: "custom",
          path: ["entities", e, "fields", f, "name"],
          message: `duplicate field name ${field.name} in ${entity.name}`,
        });
      }
      fieldNames.add(field.name);
      if (field.type === "string" && field.owner) {
        owners += 1;
        if (owners > 1) {
          ctx.addIssue({
            code: "custom",
            path: ["entities", e, "fields", f, "owner"],
            message: `${entity.name} already has an owner field; an entity has at most one`,
          });
        }
        if (field.optional) {
          ctx.addIssue({
            code: "custom",
            path: ["entities", e, "fields", f, "optional"],
            message: "an owner field cannot be optional",
          });
        }
      }
    });
    const indexNames = new Set<string>();
    entity.indexes.forEach((index, i) => {
      if (indexNames.has(index.name)) {
        ctx.addIssue({
          code: "custom",
          path: ["entities", e, "indexes", i, "name"],
          message: `duplicate index name ${index.name} in ${entity.name}`,
        });
      }
      indexNames.add(index.name);
      if (`${entity.name}_${index.name}`.length > MAX_IDENTIFIER) {
        ctx.addIssue({
          code: "custom",
          path: ["entities", e, "indexes", i, "name"],
          message: `${entity.name}_${index.name} is longer than ${MAX_IDENTIFIER} characters`,
        });
      }
      index.fields.forEach((name, k) => {
        if (!fieldNames.has(name) && name !== "id") {
          ctx.addIssue({
            code: "custom",
            path: ["entities", e, "indexes", i, "fields", k],
            message: `${entity.name} has no field ${name}${didYouMean(name, fieldNames)}`,
          });
        }
      });
    });
  });
  m.entities.forEach((entity, e) => {
    entity.fields.forEach((field, f) => {
      if (field.type === "id" && !entityNames.has(field.target)) {
        ctx.addIssue({
          code: "custom",
          path: ["entities", e, "fields", f, "target"],
          message: `unknown target entity ${field.target}${didYouMean(field.target, entityNames)}`,
        });
      }
    });
  });
  const roomNames = new Set<string>();
  m.rooms.forEach((room, r) => {
    if (roomNames.has(room.name)) {
      ctx.addIssue({
        code: "custom",
        path: ["rooms", r, "name"],
        message: `duplicate room name ${room.name}`,
      });
    }
    roomNames.add(room.name);
  });
  m.policies.forEach((policy, p) => {
    if (!entityNames.has(policy.entity)) {
      ctx.addIssue({
        code: "custom",
        path: ["policies", p, "entity"],
        message: `unknown entity ${policy.entity}${didYouMean(policy.entity, entityNames)}`,
      });
    }
  });
}

export { formatPath } from "./manifest-issues.js";

/**
 * Validates a manifest (parsed JSON or DSL output) and fills in defaults.
 * Throws a `SchemaError` with code `INVALID_MANIFEST` whose `issues` name the
 * path and reason of every problem, and whose message lists them.
 *
 * @example
 * const manifest = parseManifest(JSON.parse(text));
 */
export function parseManifest(input: unknown): Manifest {
  const result = manifestSchema.safeParse(input);
  if (result.success) return result.data;
  const issues = describeIssues(input, result.error);
  throw new SchemaError("INVALID_MANIFEST", { message: formatIssues(issues), issues });
}

/** Finds an entity by name, or undefined. */
export function findEntity(manifest: Manifest, name: string): EntityDef | undefined {
  return manifest.entities.find((entity) => entity.name === name);
}

/** Finds a room kind by name, or undefined. */
export function findRoom(manifest: Manifest, name: string): RoomDef | undefined {
  return manifest.rooms.find((room) => room.name === name);
}

/** The entity's owner field, when it declares one. */
export function ownerField(entity: EntityDef): FieldDef | undefined {
  return entity.fields.find((field) => field.type === "string" && field.owner);
}
