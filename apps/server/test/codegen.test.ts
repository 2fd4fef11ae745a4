import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import type { FieldDef, Manifest } from "@svc/schema";
import { parseManifest } from "@svc/schema";
import { listEntity, todoEntity } from "@svc/tooling/manifests";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { fieldType } from "../src/cli/field-types.js";
import { GENERATED_HEADER, generateApiTypes } from "../src/cli/generate-api.js";
import { runCli } from "../src/cli/run-cli.js";
import { tempDir } from "./fixtures.js";
import { svc as cli } from "./svc-cli.js";

// `svc codegen` end to end: generate the Api type for a temp app, then let
// the TypeScript compiler judge consumer files that use it with
// createClient<Api>() from @svc/client: the right calls compile, a wrong
// argument and a wrong entity field do not. It lives here because the client
// and the server packages do not depend on each other.

const WORKSPACE_ROOT = join(import.meta.dirname, "../../..");
const BASE_TSCONFIG = join(WORKSPACE_ROOT, "tooling/tsconfig/base.json");
const fromFunctions = createRequire(join(WORKSPACE_ROOT, "packages/functions/package.json"));
const fromHere = createRequire(import.meta.url);

/** What `npm install` would give the app, as symlinks into this workspace. */
const LINKED_PACKAGES: Record<string, string> = {
  "@svc/client": join(WORKSPACE_ROOT, "packages/client"),
  "@svc/functions": join(WORKSPACE_ROOT, "packages/functions"),
  "@svc/schema": join(WORKSPACE_ROOT, "packages/schema"),
  zod: dirname(fromFunctions.resolve("zod/package.json")),
  "@types/node": dirname(fromHere.resolve("@types/node/package.json")),
};

const MANIFEST = {
  manifest_version: 1,
  name: "typed",
  version: "0.1.0",
  entities: [todoEntity(), listEntity()],
  functions: "functions",
};

const FUNCTION_FILES: Record<string, string> = {
  "createTodo.ts": `import { mutation } from "@svc/functions";
import { z } from "zod";
export default mutation({
  args: { title: z.string().min(1), priority: z.enum(["low", "high"]).default("low") },
  handler: async (ctx, args) => {
    const row = await ctx.db.insert("Todo", { title: args.title, done: false, priority: args.priority });
    return { id: row.id, createdAt: new Date() };
  },
});
`,
  "countTodos.ts": `import { query } from "@svc/functions";
import { z } from "zod";
export default query({
  args: z.object({ listId: z.string().optional() }),
  handler: async (ctx) => (await ctx.db.query("Todo")).rows.length,
});
`,
  // Not callable: the generated type must leave it out.
  "onTodoDeleted.ts": `import { hook } from "@svc/functions";
export default hook({ on: { delete: { entity: "Todo" } }, handler: () => undefined });
`,
  // JavaScript carries no types: the generated type takes any JSON object.
  "legacy.mjs": `export default { type: "query", handler: () => 1 };\n`,
  // Helpers and tests are not functions.
  "_shared.ts": "export const shared = 1;\n",
  "createTodo.test.ts": "export {};\n",
};

const GOOD_CONSUMER = `import { createClient } from "@svc/client";
import type { Api } from "./svc-api.js";

const client = createClient<Api>({ url: "http://localhost:4321" });

export async function use(): Promise<void> {
  const created = await client.fn("createTodo", { title: "Milk" });
  const id: string = created.id;
  const createdAt: string = created.createdAt;
  await client.fn("createTodo", { title: "Eggs", priority: "high" });
  const count: number = await client.fn("countTodos");
  await client.fn("countTodos", { listId: "l1" });
  await client.fn("legacy", { anything: [1, 2] });
  const todos = client.entities("Todo");
  const row = await todos.insert({ title: "x", done: false, priority: "low" });
  const listId: string | null = row.listId;
  const priority: "low" | "high" = row.priority;
  await todos.update(id, { done: true });
  await todos.list({ where: { ownerId: "u1" }, order: "-createdAt" });
  await client.entities("List").get(id);
  void [createdAt, count, listId, priority];
}
`;

// Each mistake sits on a line ending in `// <- TSxxxx`: exactly these must fail.
const BAD_CONSUMER = `import { createClient } from "@svc/client";
import type { Api } from "./svc-api.js";

const client = createClient<Api>({ url: "http://localhost:4321" });

export async function misuse(): Promise<void> {
  await client.fn("createTodo", { title: 42 }); // <- TS2322
  await client.fn("createTodo", { title: "x", priority: "urgent" }); // <- TS2322
  await client.fn("createTodo", { title: "x", colour: "red" }); // <- TS2353
  await client.fn("createTodo", {}); // <- TS2345
  await client.fn("onTodoDeleted", {}); // <- TS2345
  await client.fn("deleteEverything"); // <- TS2345
  const n: string = await client.fn("countTodos"); // <- TS2322
  await client.entities("Todo").insert({ title: "x", colour: "red" }); // <- TS2353
  await client.entities("Todo").insert({ title: "x", done: "no" }); // <- TS2322
  await client.entities("Todo").list({ order: "-colour" }); // <- TS2322
  await client.entities("Ghost").list(); // <- TS2345
  const row = await client.entities("List").get("x");
  void row.done; // <- TS2339
  void n;
}
`;

// The DSL route: createClient<ApiOf<typeof app, ...>> without codegen.
const DSL_APP = `import { defineApp, entity, field } from "@svc/schema";
export const Todo = entity("Todo", { title: field.string(), done: field.bool() });
export default defineApp({ name: "dsl", version: "1", entities: [Todo] });
`;
const DSL_CONSUMER = `import { createClient } from "@svc/client";
import type { ApiOf } from "@svc/functions";
import type app from "./app.js";
import type createTodo from "./functions/createTodo.js";

type Api = ApiOf<typeof app, { createTodo: typeof createTodo }>;
const client = createClient<Api>({ url: "http://localhost:4321" });

export async function use(): Promise<void> {
  const { id } = await client.fn("createTodo", { title: "Milk" });
  const row = await client.entities("Todo").get(id);
  const done: boolean = row.done;
  await client.fn("createTodo", { title: 1 }); // <- TS2322
  await client.entities("Todo").insert({ colour: "red" }); // <- TS2353
  void done;
}
`;

interface AppDir {
  readonly path: string;
  [Symbol.dispose](): void;
}

function writeApp(): AppDir {
  const temp = tempDir();
  const app = temp.path;
  writeFileSync(join(app, "svc.json"), JSON.stringify(MANIFEST, null, 2));
  mkdirSync(join(app, "functions"));
  for (const [name, text] of Object.entries(FUNCTION_FILES)) {
    writeFileSync(join(app, "functions", name), text);
  }
  writeFileSync(join(app, "package.json"), JSON.stringify({ type: "module", private: true }));
  writeFileSync(
    join(app, "tsconfig.json"),
    JSON.stringify({
      extends: BASE_TSCONFIG,
      // Check the generated .d.ts itself too, not only what uses it.
      compilerOptions: { skipLibCheck: false },
      include: ["*.ts", "functions"],
    }),
  );
  for (const [name, target] of Object.entries(LINKED_PACKAGES)) {
    const link = join(app, "node_modules", name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(target, link, "junction");
  }
  return temp;
}

/**
 * Type-checks the app's project and answers the diagnostics of its own
 * files as `file:line TSxxxx` (sibling packages' sources, which other work
 * may be changing, are compiled but not judged here).
 */
function typeCheck(app: string): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(join(app, "tsconfig.json"), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
    },
  });
  if (config === undefined) throw new Error("no tsconfig");
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const found: string[] = [];
  for (const file of program.getSourceFiles()) {
    const path = relative(app, file.fileName);
    if (path.startsWith("..") || path.startsWith("node_modules")) continue;
    const diagnostics = [
      ...program.getSyntacticDiagnostics(file),
      ...program.getSemanticDiagnostics(file),
    ];
    for (const diagnostic of diagnostics) {
      const { line } = file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      found.push(`${path}:${line + 1} TS${diagnostic.code}`);
    }
  }
  return found.sort();
}

/** The `// <- TSxxxx` markers of a consumer file, as `typeCheck` reports them. */
function expectedErrors(file: string, text: string): string[] {
  return text
    .split("\n")
    .flatMap((line, index) => {
      const match = /\/\/ <- (TS\d+)$/.exec(line);
      return match ? [`${file}:${index + 1} ${match[1]}`] : [];
    })
    .sort();
}

describe("svc codegen", () => {
  it("writes an Api type that accepts right calls and rejects wrong ones", async () => {
    using temp = writeApp();
    const app = temp.path;
    const { code, out, err } = await cli("codegen", "--manifest", join(app, "svc.json"));
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(out).toMatch(/^svc: wrote .*svc-api\.d\.ts \(2 entities, 4 function files\)\n$/);

    const generated = readFileSync(join(app, "svc-api.d.ts"), "utf8");
    expect(generated.startsWith(GENERATED_HEADER)).toBe(true);
    expect(generated).toContain('import type fn_createTodo from "./functions/createTodo.js";');
    expect(generated).toContain(
      'import type fn_onTodoDeleted from "./functions/onTodoDeleted.js";',
    );
    expect(generated).not.toContain("legacy.mjs");
    expect(generated).not.toContain("_shared");
    expect(generated).not.toContain("createTodo.test");

    writeFileSync(join(app, "good.ts"), GOOD_CONSUMER);
    writeFileSync(join(app, "bad.ts"), BAD_CONSUMER);
    writeFileSync(join(app, "app.ts"), DSL_APP);
    writeFileSync(join(app, "dsl.ts"), DSL_CONSUMER);
    expect(typeCheck(app)).toEqual(
      [...expectedErrors("bad.ts", BAD_CONSUMER), ...expectedErrors("dsl.ts", DSL_CONSUMER)].sort(),
    );
  }, 120_000);

  it("writes a .ts file where --out says, importing the functions relative to it", async () => {
    using temp = writeApp();
    const app = temp.path;
    mkdirSync(join(app, "src"));
    const { code } = await cli(
      "codegen",
      "--manifest",
      join(app, "svc.json"),
      "--out",
      join(app, "src", "api.ts"),
    );
    expect(code).toBe(0);
    const generated = readFileSync(join(app, "src", "api.ts"), "utf8");
    expect(generated).toContain('import type fn_countTodos from "../functions/countTodos.js";');
    expect(generated).toContain("// From ../svc.json");
  });

  it("takes the manifest from SVC_MANIFEST and writes the same bytes every time", async () => {
    using temp = writeApp();
    const app = temp.path;
    const env = { SVC_MANIFEST: join(app, "svc.json") };
    const io = { stdout: () => undefined, stderr: () => undefined };
    expect(await runCli(["codegen"], io, env)).toBe(0);
    const first = readFileSync(join(app, "svc-api.d.ts"), "utf8");
    expect(await runCli(["codegen"], io, env)).toBe(0);
    expect(readFileSync(join(app, "svc-api.d.ts"), "utf8")).toBe(first);
  });

  it("exits 1 with one line when the manifest cannot be read", async () => {
    const { code, err } = await cli("codegen", "--manifest", "/nope/svc.json");
    expect(code).toBe(1);
    expect(err).toBe("svc: SVC_MANIFEST: cannot read /nope/svc.json: no such file\n");
  });

  it.each([
    [
      "a bad function name",
      { "my-fn.ts": "export default {};\n" },
      "my-fn.ts has no valid function name",
    ],
    [
      "a name defined twice",
      { "dup.ts": "export default {};\n", "dup.mjs": "export default {};\n" },
      "dup.mjs and dup.ts both define function dup",
    ],
  ])("exits 1 naming the functions setting on %s", async (_label, files, message) => {
    using temp = writeApp();
    for (const [name, text] of Object.entries(files)) {
      writeFileSync(join(temp.path, "functions", name), text);
    }
    const { code, err } = await cli("codegen", "--manifest", join(temp.path, "svc.json"));
    expect(code).toBe(1);
    expect(err).toMatch(/^svc: functions: /);
    expect(err).toContain(message);
    expect(err.trim().split("\n")).toHaveLength(1);
  });

  it("exits 1 when the output cannot be written", async () => {
    using temp = writeApp();
    const out = join(temp.path, "missing-dir", "api.d.ts");
    const { code, err } = await cli(
      "codegen",
      "--manifest",
      join(temp.path, "svc.json"),
      "--out",
      out,
    );
    expect(code).toBe(1);
    expect(err).toMatch(/^svc: --out: cannot write .*api\.d\.ts \(ENOENT\)\n$/);
  });

  it.each([[["codegen", "--bogus"]], [["codegen", "extra"]], [["codegen", "--out", "api.json"]]])(
    "exits 2 with the usage on %j",
    async (argv) => {
      const { code, err } = await cli(...argv);
      expect(code).toBe(2);
      expect(err).toContain("Usage: svc codegen");
    },
  );

  it("prints its usage on --help", async () => {
    const { code, out } = await cli("codegen", "--help");
    expect(code).toBe(0);
    expect(out).toContain("Usage: svc codegen");
  });
});

function manifestWith(entities: unknown[], extra: Record<string, unknown> = {}): Manifest {
  return parseManifest({ manifest_version: 1, name: "m", version: "1", entities, ...extra });
}

describe("fieldType", () => {
  const field = (def: Record<string, unknown>): FieldDef =>
    manifestWith([
      {
        name: "E",
        fields: [{ name: "f", ...def }],
      },
      { name: "Target", fields: [] },
    ]).entities[0]?.fields[0] as FieldDef;

  it.each([
    [{ type: "string" }, "string"],
    [{ type: "string", owner: true }, "string"],
    [{ type: "int" }, "number"],
    [{ type: "float" }, "number"],
    [{ type: "bool" }, "boolean"],
    [{ type: "datetime", defaultNow: true }, "string"],
    [{ type: "json" }, "unknown"],
    [{ type: "id", target: "Target" }, "string"],
    [{ type: "enum", values: ["low", "high"] }, '"low" | "high"'],
    [{ type: "enum", values: ['say "hi"'] }, '"say \\"hi\\""'],
    [{ type: "int", optional: true }, "number | null"],
    [{ type: "enum", values: ["a"], optional: true }, '"a" | null'],
    [{ type: "json", optional: true }, "unknown"],
    [{ type: "datetime", optional: true, unique: true }, "string | null"],
  ])("maps %j to %s", (def, expected) => {
    expect(fieldType(field(def))).toBe(expected);
  });
});

describe("generateApiTypes", () => {
  it("sorts entities and functions by name and keeps field order", () => {
    const manifest = manifestWith([
      {
        name: "Zed",
        fields: [
          { name: "b", type: "int" },
          { name: "a", type: "bool" },
        ],
      },
      { name: "Alpha", fields: [] },
    ]);
    const text = generateApiTypes({
      manifest,
      manifestLabel: "./svc.json",
      functions: [
        { name: "zeta", specifier: "./functions/zeta.js", typescript: true },
        { name: "old", specifier: "./functions/old.mjs", typescript: false },
        { name: "alpha", specifier: "./functions/alpha.js", typescript: true },
      ],
    });
    expect(text).toBe(`${GENERATED_HEADER}
// From ./svc.json (app "m"); run \`svc codegen\` again after
// changing the manifest or adding, renaming or removing a function file.

import type { InferFunctions } from "@svc/functions";
import type fn_alpha from "./functions/alpha.js";
import type fn_zeta from "./functions/zeta.js";

/** The function files' default exports; \`InferFunctions\` leaves hooks and rooms out. */
type Definitions = {
  alpha: typeof fn_alpha;
  zeta: typeof fn_zeta;
};

/**
 * The app's API for \`createClient<Api>()\` from @svc/client: each function's
 * arguments and result, each entity's row fields (the client adds \`id\`).
 */
export type Api = {
  functions: InferFunctions<Definitions> & {
    // JavaScript files: any JSON object in, any JSON value out.
    old: { args: Readonly<Record<string, unknown>>; result: unknown };
  };
  entities: {
    Alpha: {};
    Zed: {
      b: number;
      a: boolean;
    };
  };
};
`);
  });

  it("needs no import when there are no TypeScript functions", () => {
    const text = generateApiTypes({
      manifest: manifestWith([]),
      manifestLabel: "./svc.json",
      functions: [],
    });
    expect(text).not.toContain("import");
    expect(text).toContain("  functions: {};\n  entities: {};\n");
  });
});
