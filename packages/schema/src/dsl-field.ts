import type { FieldKind, ManifestInput } from "./manifest.js";

/** One entity as an author may write it in a manifest (defaults still optional). */
export type EntityInput = NonNullable<ManifestInput["entities"]>[number];
/** One field as an author may write it in a manifest (defaults still optional). */
export type FieldInput = EntityInput["fields"][number];

interface Modifiers {
  readonly optional: boolean;
  readonly unique: boolean;
  readonly owner: boolean;
  readonly defaultNow: boolean;
  /** Largest value in bytes (string and json); undefined for the store's default. */
  readonly maxBytes: number | undefined;
}

type FieldSpec = Modifiers &
  (
    | { readonly kind: Exclude<FieldKind, "id" | "enum"> }
    | { readonly kind: "id"; readonly target: string }
    | { readonly kind: "enum"; readonly values: readonly string[] }
  );

const NO_MODIFIERS: Modifiers = {
  optional: false,
  unique: false,
  owner: false,
  defaultNow: false,
  maxBytes: undefined,
};

/**
 * An immutable description of one entity field; every modifier returns a new
 * builder and leaves this one untouched. Made by the `field` factories, named
 * by the key it is given in `entity(...)`.
 *
 * `TValue` is the field's value in a row, `TOptional` whether the row may hold
 * `null` instead.
 */
export class FieldBuilder<TValue, TOptional extends boolean = false> {
  /** Type-only carrier of the row type; never present at runtime. */
  declare readonly "~types": { readonly value: TValue; readonly optional: TOptional };
  readonly #spec: FieldSpec;

  /** Use the `field` factories instead; the spec is not public API. */
  constructor(spec: FieldSpec) {
    this.#spec = spec;
    Object.freeze(this);
  }

  /** The field's kind, as the manifest's `type` names it. */
  get kind(): FieldKind {
    return this.#spec.kind;
  }

  /** The row may hold `null` for this field (default: required). */
  optional(): FieldBuilder<TValue, true> {
    return new FieldBuilder(this.withModifiers({ optional: true }));
  }

  /** No two rows may hold the same value (default: not unique). */
  unique(): FieldBuilder<TValue, TOptional> {
    return new FieldBuilder(this.withModifiers({ unique: true }));
  }

  /**
   * The manifest entry for this field under `name`. Modifiers left at their
   * defaults are omitted, as in a hand-written manifest.
   */
  toField(name: string): FieldInput {
    const spec = this.#spec;
    const common = {
      ...(spec.optional ? { optional: true } : {}),
      ...(spec.unique ? { unique: true } : {}),
    };
    const maxBytes = spec.maxBytes === undefined ? {} : { maxBytes: spec.maxBytes };
    switch (spec.kind) {
      case "string":
        return {
          name,
          type: "string",
          ...common,
          ...(spec.owner ? { owner: true } : {}),
          ...maxBytes,
        };
      case "json":
        return { name, type: "json", ...common, ...maxBytes };
      case "datetime":
        return {
          name,
          type: "datetime",
          ...common,
          ...(spec.defaultNow ? { defaultNow: true } : {}),
        };
      case "id":
        return { name, type: "id", target: spec.target, ...common };
      case "enum":
        return { name, type: "enum", values: [...spec.values], ...common };
      default:
        return { name, type: spec.kind, ...common };
    }
  }

  /** This builder's spec with some modifiers changed, for subclasses to wrap. */
  protected withModifiers(change: Partial<Modifiers>): FieldSpec {
    return { ...this.#spec, ...change };
  }
}

/** A string field; the only kind that can be an entity's owner field. */
export class StringFieldBuilder<TOptional extends boolean = false> extends FieldBuilder<
  string,
  TOptional
> {
  override optional(): StringFieldBuilder<true> {
    return new StringFieldBuilder(this.withModifiers({ optional: true }));
  }

  override unique(): StringFieldBuilder<TOptional> {
    return new StringFieldBuilder(this.withModifiers({ unique: true }));
  }

  /**
   * Marks the field holding the owning user's id: inserts by a signed-in
   * user fill it and policies can compare it with `auth.userId`. At most one
   * per entity, and it cannot be optional (checked by `defineApp`).
   */
  owner(): StringFieldBuilder<TOptional> {
    return new StringFieldBuilder(this.withModifiers({ owner: true }));
  }

  /**
   * The largest value the store accepts, in bytes of UTF-8 (default: the
   * store's `maxFieldBytes`, 64 KiB on the server). A larger one is refused
   * with `FIELD_TOO_LARGE`. An integer from 1 to 64 MiB (checked by `defineApp`).
   */
  maxBytes(bytes: number): StringFieldBuilder<TOptional> {
    return new StringFieldBuilder(this.withModifiers({ maxBytes: bytes }));
  }
}

/** A json field: any JSON value, stored as its JSON text. */
export class JsonFieldBuilder<TValue, TOptional extends boolean = false> extends FieldBuilder<
  TValue,
  TOptional
> {
  override optional(): JsonFieldBuilder<TValue, true> {
    return new JsonFieldBuilder(this.withModifiers({ optional: true }));
  }

  override unique(): JsonFieldBuilder<TValue, TOptional> {
    return new JsonFieldBuilder(this.withModifiers({ unique: true }));
  }

  /**
   * The largest value the store accepts, in bytes of its JSON text (default:
   * the store's `maxFieldBytes`, 64 KiB on the server). A larger one is
   * refused with `FIELD_TOO_LARGE`. An integer from 1 to 64 MiB (checked by `defineApp`).
   */
  maxBytes(bytes: number): JsonFieldBuilder<TValue, TOptional> {
    return new JsonFieldBuilder(this.withModifiers({ maxBytes: bytes }));
  }
}

/** A datetime field, stored and returned as an ISO 8601 string. */
export class DatetimeFieldBuilder<TOptional extends boolean = false> extends FieldBuilder<
  string,
  TOptional
> {
  override optional(): DatetimeFieldBuilder<true> {
    return new DatetimeFieldBuilder(this.withModifiers({ optional: true }));
  }

  override unique(): DatetimeFieldBuilder<TOptional> {
    return new DatetimeFieldBuilder(this.withModifiers({ unique: true }));
  }

  /** Inserts that leave the field out get the current time (default: no default). */
  defaultNow(): DatetimeFieldBuilder<TOptional> {
    return new DatetimeFieldBuilder(this.withModifiers({ defaultNow: true }));
  }
}

/** Any field builder, whatever its row type. */
export type AnyFieldBuilder = FieldBuilder<unknown, boolean>;

/**
 * The field factories of the DSL. Each returns a required, non-unique
 * builder; chain `.optional()`, `.unique()` and the kind's own modifiers.
 *
 * @example
 * const fields = {
 *   title: field.string(),
 *   ownerId: field.string().owner(),
 *   priority: field.enum(["low", "high"]),
 *   dueAt: field.datetime().optional(),
 *   note: field.string().maxBytes(4096),
 * };
 */
export const field = {
  /** Text. Row type `string`. */
  string(): StringFieldBuilder {
    return new StringFieldBuilder({ ...NO_MODIFIERS, kind: "string" });
  },
  /** A whole number. Row type `number`. */
  int(): FieldBuilder<number> {
    return new FieldBuilder({ ...NO_MODIFIERS, kind: "int" });
  },
  /** A floating-point number. Row type `number`. */
  float(): FieldBuilder<number> {
    return new FieldBuilder({ ...NO_MODIFIERS, kind: "float" });
  },
  /** True or false. Row type `boolean`. */
  bool(): FieldBuilder<boolean> {
    return new FieldBuilder({ ...NO_MODIFIERS, kind: "bool" });
  },
  /** A point in time. Row type `string` (ISO 8601). */
  datetime(): DatetimeFieldBuilder {
    return new DatetimeFieldBuilder({ ...NO_MODIFIERS, kind: "datetime" });
  },
  /**
   * Any JSON value. The row type is `TValue` (default `unknown`); it is not
   * checked at runtime.
   */
  json<TValue = unknown>(): JsonFieldBuilder<TValue> {
    return new JsonFieldBuilder({ ...NO_MODIFIERS, kind: "json" });
  },
  /** The id of a record of the entity named `target`. Row type `string`. */
  id(target: string): FieldBuilder<string> {
    return new FieldBuilder({ ...NO_MODIFIERS, kind: "id", target });
  },
  /**
   * One of a fixed, non-empty list of distinct strings; the row type is the
   * union of their literals, no `as const` needed.
   */
  enum<const TValues extends readonly [string, ...string[]]>(
    values: TValues,
  ): FieldBuilder<TValues[number]> {
    return new FieldBuilder({ ...NO_MODIFIERS, kind: "enum", values: Object.freeze([...values]) });
  },
  /**
   * A stored file (uploaded through @svc/files). Row type `string`: the
   * file's id, 40 lowercase hex characters.
   */
  file(): FieldBuilder<string> {
    return new FieldBuilder({ ...NO_MODIFIERS, kind: "file" });
  },
} as const;
