import { describe, expectTypeOf, it } from "vitest";
import { List, Todo } from "../test/architecture-manifest.js";
import {
  type AppManifest,
  defineApp,
  type InferEntities,
  type InferEntityFields,
  policy,
} from "./dsl-app.js";
import { entity, type InferFieldValue, type InferRow } from "./dsl-entity.js";
import { field } from "./dsl-field.js";
import type { ManifestInput } from "./manifest.js";

// Type-level behaviour: `tsc --noEmit` (pnpm typecheck) checks this file, and
// every `@ts-expect-error` below fails the typecheck if the line compiles.

interface Settings {
  theme: "dark" | "light";
  pinned: string[];
}

describe("InferRow", () => {
  it("types the architecture's Todo", () => {
    expectTypeOf<InferRow<typeof Todo>>().toEqualTypeOf<{
      id: string;
      title: string;
      done: boolean;
      ownerId: string;
      listId: string | null;
      priority: "low" | "high";
      createdAt: string;
    }>();
  });

  it("maps every kind, optional ones with null", () => {
    const Thing = entity("Thing", {
      count: field.int(),
      ratio: field.float().optional(),
      settings: field.json<Settings>(),
      extra: field.json(),
      maybeSettings: field.json<Settings>().optional(),
      at: field.datetime().optional().defaultNow(),
      code: field.string().unique().optional(),
      size: field.enum(["s", "m", "l"]).optional(),
    });
    expectTypeOf<InferRow<typeof Thing>>().toEqualTypeOf<{
      id: string;
      count: number;
      ratio: number | null;
      settings: Settings;
      extra: unknown;
      maybeSettings: Settings | null;
      at: string | null;
      code: string | null;
      size: "s" | "m" | "l" | null;
    }>();
  });

  it("types a single field", () => {
    expectTypeOf<InferFieldValue<ReturnType<typeof field.bool>>>().toEqualTypeOf<boolean>();
    const level = field.enum(["debug", "info"]).optional();
    expectTypeOf<InferFieldValue<typeof level>>().toEqualTypeOf<"debug" | "info" | null>();
  });

  it("keeps the entity name literal", () => {
    expectTypeOf(Todo.name).toEqualTypeOf<"Todo">();
  });

  it("returns a manifest input", () => {
    expectTypeOf(defineApp).returns.toExtend<ManifestInput>();
    expectTypeOf(policy(Todo, { name: "p" }).entity).toEqualTypeOf<string>();
  });
});

describe("defineApp carries its entities", () => {
  const app = defineApp({ name: "todo", version: "1", entities: [List, Todo] });

  it("is still a manifest input", () => {
    expectTypeOf(app).toExtend<ManifestInput>();
    const manifest: ManifestInput = app;
    expectTypeOf(manifest).toEqualTypeOf<ManifestInput>();
  });

  it("infers every entity's row by name", () => {
    expectTypeOf<InferEntities<typeof app>>().toEqualTypeOf<{
      List: InferRow<typeof List>;
      Todo: InferRow<typeof Todo>;
    }>();
    expectTypeOf<InferEntities<typeof app>["List"]>().toEqualTypeOf<{
      id: string;
      title: string;
    }>();
  });

  it("infers the fields without id for the client's Api", () => {
    expectTypeOf<InferEntityFields<typeof app>["List"]>().toEqualTypeOf<{ title: string }>();
    expectTypeOf<InferEntityFields<typeof app>["Todo"]["listId"]>().toEqualTypeOf<string | null>();
    expectTypeOf<keyof InferEntityFields<typeof app>>().toEqualTypeOf<"List" | "Todo">();
  });

  it("infers no entities for an app without any", () => {
    const empty = defineApp({ name: "e", version: "1" });
    expectTypeOf<InferEntities<typeof empty>>().toEqualTypeOf<Record<never, never>>();
    expectTypeOf(empty).toEqualTypeOf<AppManifest<readonly []>>();
  });

  it("rejects unknown entities and rows of the wrong shape", () => {
    const uses = [
      // @ts-expect-error the app has no entity Ghost
      (rows: InferEntities<typeof app>) => rows.Ghost,
      // @ts-expect-error List rows have no done field
      (rows: InferEntities<typeof app>) => rows.List.done,
      // @ts-expect-error title is a string
      (): InferEntityFields<typeof app>["List"] => ({ title: 1 }),
    ];
    expectTypeOf(uses).toBeArray();
  });
});

// The invalid calls sit in functions that never run: only the compiler sees them.
describe("invalid uses", () => {
  it("rejects modifiers on the wrong kind", () => {
    const uses = [
      // @ts-expect-error owner() exists only on string fields
      () => field.int().owner(),
      // @ts-expect-error owner() exists only on string fields
      () => field.id("List").owner(),
      // @ts-expect-error defaultNow() exists only on datetime fields
      () => field.string().defaultNow(),
      // @ts-expect-error defaultNow() exists only on datetime fields
      () => field.int().optional().defaultNow(),
      // @ts-expect-error maxBytes() exists only on string and json fields
      () => field.int().maxBytes(10),
      // @ts-expect-error maxBytes() exists only on string and json fields
      () => field.enum(["a"]).maxBytes(10),
      // The kind's own modifiers survive optional() and unique().
      () => field.json<{ a: number }>().optional().unique().maxBytes(10),
      () => field.string().optional().unique().owner(),
      () => field.datetime().unique().optional().defaultNow(),
    ];
    expectTypeOf(uses).toBeArray();
  });

  it("rejects an empty enum and non-string values", () => {
    const uses = [
      // @ts-expect-error an enum needs at least one value
      () => field.enum([]),
      // @ts-expect-error enum values are strings
      () => field.enum([1, 2]),
    ];
    expectTypeOf(uses).toBeArray();
  });

  it("rejects index fields the entity lacks", () => {
    const ok = entity(
      "E",
      { a: field.int(), b: field.string() },
      {
        indexes: [{ name: "ok", fields: ["a", "b", "id"] }],
      },
    );
    expectTypeOf(ok.name).toEqualTypeOf<"E">();
    const uses = [
      // @ts-expect-error `c` is not a field of E
      () => entity("E", { a: field.int() }, { indexes: [{ name: "bad", fields: ["c"] }] }),
    ];
    expectTypeOf(uses).toBeArray();
  });

  it("rejects values that are not field builders", () => {
    const uses = [
      // @ts-expect-error a field must be a builder, not a manifest entry
      () => entity("E", { a: { type: "string" } }),
    ];
    expectTypeOf(uses).toBeArray();
  });

  it("rejects unknown policy rules and non-entities", () => {
    const uses = [
      // @ts-expect-error allowWrite is not a rule
      () => policy(Todo, { name: "p", allowWrite: "true" }),
      // @ts-expect-error a policy takes an entity, not its name
      () => policy("Todo", { name: "p" }),
    ];
    expectTypeOf(uses).toBeArray();
  });

  it("requires name and version", () => {
    const uses = [
      // @ts-expect-error version is required
      () => defineApp({ name: "x" }),
    ];
    expectTypeOf(uses).toBeArray();
  });
});
