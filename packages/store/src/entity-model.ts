import type { EntityDef, FieldDef, Manifest, PlannedIndex, TablePlan } from "@svc/schema";
import { type Encoder, encoderFor, type RowDecoder, rowDecoder } from "./codecs.js";
import type { StoreDialect } from "./database.js";
import { fieldBound, type SizeLimits } from "./field-size.js";

/** A field with everything the hot path needs, computed once per store. */
export interface FieldModel {
  readonly name: string;
  readonly def: FieldDef;
  /** `Entity.field`, for messages. */
  readonly label: string;
  readonly encode: Encoder;
  /** Largest encoded value in bytes (string and json fields); null for kinds without a bound. */
  readonly maxBytes: number | null;
}

/** A column of another entity that points at this entity's rows. */
export interface InboundReference {
  readonly entity: string;
  readonly field: string;
}

/** An entity with its columns, codecs and constraints precomputed. */
export interface EntityModel {
  readonly name: string;
  readonly def: EntityDef;
  readonly fields: ReadonlyMap<string, FieldModel>;
  readonly fieldList: readonly FieldModel[];
  /** `id` followed by every field, in manifest order: the select list. */
  readonly columns: readonly string[];
  readonly owner: FieldModel | undefined;
  readonly defaultNow: readonly FieldModel[];
  /** The entity's `id` fields. */
  readonly references: readonly FieldModel[];
  readonly referencedBy: readonly InboundReference[];
  readonly uniqueIndexes: readonly PlannedIndex[];
  /** Turns a driver row (with exactly `columns`) into an API row. */
  readonly decode: RowDecoder;
  /** The bounded fields (`maxBytes` not null), whose values a row's size counts. */
  readonly sizedFields: readonly FieldModel[];
  /**
   * The bound of a row's string and json values together; null when the
   * fields' own bounds cannot add up past it (no row total is counted then).
   */
  readonly maxRowBytes: number | null;
}

function buildModel(
  entity: EntityDef,
  plan: TablePlan,
  dialect: StoreDialect,
  limits: SizeLimits,
): EntityModel {
  const fieldList: FieldModel[] = entity.fields.map((def) => ({
    name: def.name,
    def,
    label: `${entity.name}.${def.name}`,
    encode: encoderFor(def.type, dialect),
    maxBytes: fieldBound(def, limits),
  }));
  const sizedFields = fieldList.filter((field) => field.maxBytes !== null);
  const largestRow = sizedFields.reduce((sum, field) => sum + (field.maxBytes ?? 0), 0);
  const table = plan.tables.find((candidate) => candidate.name === entity.name);
  return {
    name: entity.name,
    def: entity,
    fields: new Map(fieldList.map((field) => [field.name, field])),
    fieldList,
    columns: ["id", ...fieldList.map((field) => field.name)],
    owner: fieldList.find((field) => field.def.type === "string" && field.def.owner),
    defaultNow: fieldList.filter((field) => field.def.type === "datetime" && field.def.defaultNow),
    references: fieldList.filter((field) => field.def.type === "id"),
    referencedBy: [],
    uniqueIndexes: (table?.indexes ?? []).filter((index) => index.unique),
    decode: rowDecoder(
      entity.fields.map((def) => ({ name: def.name, kind: def.type })),
      dialect,
    ),
    sizedFields,
    maxRowBytes: largestRow > limits.maxRowBytes ? limits.maxRowBytes : null,
  };
}

/** Builds the model of every entity once, when the store is created. */
export function buildEntityModels(
  manifest: Manifest,
  plan: TablePlan,
  dialect: StoreDialect,
  limits: SizeLimits,
): ReadonlyMap<string, EntityModel> {
  const inbound = new Map<string, InboundReference[]>();
  for (const entity of manifest.entities) {
    for (const field of entity.fields) {
      if (field.type !== "id") continue;
      const list = inbound.get(field.target) ?? [];
      list.push({ entity: entity.name, field: field.name });
      inbound.set(field.target, list);
    }
  }
  const models = new Map<string, EntityModel>();
  for (const entity of manifest.entities) {
    const model = buildModel(entity, plan, dialect, limits);
    models.set(entity.name, { ...model, referencedBy: inbound.get(entity.name) ?? [] });
  }
  return models;
}
