import { type AnyFieldBuilder, type EntityInput, FieldBuilder } from "./dsl-field.js";
import { SchemaError } from "./errors.js";

/** An entity's fields, keyed by field name, in declaration order. */
export type FieldBuilders = Readonly<Record<string, AnyFieldBuilder>>;

/** An index over some of an entity's fields (or its `id`). */
export interface IndexOptions<TField extends string = string> {
  /** Lower-case identifier, unique within the entity. */
  readonly name: string;
  /** The indexed fields, in order; at least one. */
  readonly fields: readonly TField[];
  /** No two rows may share the indexed values (default: false). */
  readonly unique?: boolean;
}

/** What `entity(...)` accepts besides the fields. */
export interface EntityOptions<TField extends string = string> {
  /** Secondary indexes (default: none). */
  readonly indexes?: readonly IndexOptions<TField>[];
}

/**
 * An entity declared with the DSL: its name, its field builders (which carry
 * the row type for `InferRow`) and its manifest form. Immutable.
 */
export class Entity<TName extends string = string, TFields extends FieldBuilders = FieldBuilders> {
  /** The entity name, as policies and the API refer to it. */
  readonly name: TName;
  /** The field builders, keyed by field name. */
  readonly fields: TFields;
  readonly #indexes: readonly IndexOptions[];

  /** Use `entity(...)` instead. */
  constructor(name: TName, fields: TFields, options: EntityOptions = {}) {
    this.name = name;
    this.fields = Object.freeze({ ...fields });
    this.#indexes = Object.freeze(
      (options.indexes ?? []).map((index) =>
        Object.freeze({ ...index, fields: Object.freeze([...index.fields]) }),
      ),
    );
    Object.freeze(this);
  }

  /**
   * The manifest entry for this entity. `indexes` is left out when there are
   * none; each index always states `unique`, as the reference manifest does.
   */
  toEntity(): EntityInput {
    const fields = Object.entries(this.fields).map(([name, builder]) => {
      if (!(builder instanceof FieldBuilder)) {
        throw new SchemaError("INVALID_MANIFEST", {
          message: `Invalid manifest: ${this.name}.${name}: is not a field builder; use field.string() and its siblings`,
          issues: [
            {
              path: `${this.name}.${name}`,
              message: "is not a field builder; use field.string() and its siblings",
            },
          ],
        });
      }
      return builder.toField(name);
    });
    const indexes = this.#indexes.map((index) => ({
      name: index.name,
      fields: [...index.fields],
      unique: index.unique ?? false,
    }));
    return indexes.length > 0 ? { name: this.name, fields, indexes } : { name: this.name, fields };
  }
}

/**
 * Declares an entity. Field order is the key order of `fields`; index field
 * names are checked against those keys (and `id`) at compile time. Names and
 * references are validated when the app is passed to `defineApp`.
 *
 * @example
 * const Todo = entity(
 *   "Todo",
 *   { title: field.string(), ownerId: field.string().owner() },
 *   { indexes: [{ name: "by_owner", fields: ["ownerId"] }] },
 * );
 */
export function entity<const TName extends string, TFields extends FieldBuilders>(
  name: TName,
  fields: TFields,
  options?: EntityOptions<NoInfer<Extract<keyof TFields, string>> | "id">,
): Entity<TName, TFields> {
  return new Entity(name, fields, options);
}

/** The value a field builder puts in a row: `null` joins the type when optional. */
export type InferFieldValue<TField extends AnyFieldBuilder> =
  TField["~types"]["optional"] extends true
    ? TField["~types"]["value"] | null
    : TField["~types"]["value"];

/**
 * The row type of an entity declared with `entity(...)`: `id` plus every
 * field, optional fields as `T | null`.
 *
 * @example
 * type TodoRow = InferRow<typeof Todo>; // { id: string; title: string; ... }
 */
export type InferRow<TEntity extends Entity> = {
  [K in "id" | keyof TEntity["fields"]]: K extends keyof TEntity["fields"]
    ? InferFieldValue<TEntity["fields"][K]>
    : string;
};
