import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { FunctionsError } from "./errors.js";
import { loadFunctions } from "./load-functions.js";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "../test/fixtures");
const temps: string[] = [];

/** Writes `files` into a fresh `<tmp>/functions` directory and returns its path. */
async function functionsDir(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "svc-functions-"));
  temps.push(root);
  const dir = join(root, "functions");
  await mkdir(dir);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const plainQuery = `export default { type: "query", handler: () => "ok" };\n`;

async function loadError(dir: string): Promise<FunctionsError> {
  const error: unknown = await loadFunctions(dir).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof FunctionsError))
    throw new Error(`expected a FunctionsError, got ${error}`);
  return error;
}

describe("loadFunctions", () => {
  it("loads TypeScript without a build step, with zod, @svc/functions and a helper import", async () => {
    const registry = await loadFunctions(join(fixtures, "ts-functions"));
    expect([...registry.keys()].sort()).toEqual(["createTodo", "listTodos"]);
    expect(registry.get("createTodo")?.type).toBe("mutation");
    const list = registry.get("listTodos");
    expect(list?.type).toBe("query");
    expect(list?.type === "query" && list.auth).toBe("guest");
  });

  it("loads a plain import-free .mjs and an ESM .js", async () => {
    const dir = await functionsDir({
      "ping.mjs": plainQuery,
      "bump.js": `export default { type: "mutation", auth: "guest", handler: async () => 1 };\n`,
    });
    const registry = await loadFunctions(dir);
    expect(registry.get("ping")?.type).toBe("query");
    expect(registry.get("bump")?.type).toBe("mutation");
    const ping = registry.get("ping");
    expect(ping?.type === "query" && (await ping.handler({} as never, {}))).toBe("ok");
  });

  it("loads a self-contained .ts with type annotations", async () => {
    const dir = await functionsDir({
      "hello.ts": `const greet = (name: string): string => \`hi \${name}\`;\nexport default { type: "action" as const, handler: (): string => greet("you") };\n`,
    });
    const registry = await loadFunctions(dir);
    expect(registry.get("hello")?.type).toBe("action");
  });

  it("skips helpers, hidden files, declarations, tests, other extensions and subdirectories", async () => {
    const dir = await functionsDir({
      "ok.mjs": plainQuery,
      "_helper.ts": "export const x = 1;\n",
      ".hidden.mjs": plainQuery,
      "types.d.ts": "export type X = 1;\n",
      "ok.test.ts": "throw new Error('never imported');\n",
      "notes.md": "# notes\n",
      "legacy.cjs": "module.exports = {};\n",
      "nested/deep.mjs": plainQuery,
    });
    expect([...(await loadFunctions(dir)).keys()]).toEqual(["ok"]);
  });

  it("answers an empty registry for a missing directory", async () => {
    const registry = await loadFunctions(
      join(tmpdir(), "svc-functions-does-not-exist", "functions"),
    );
    expect(registry.size).toBe(0);
  });

  it("rejects a file name that is not a function name", async () => {
    const error = await loadError(await functionsDir({ "create-todo.mjs": plainQuery }));
    expect(error.code).toBe("INVALID_FUNCTION");
    expect(error.message).toContain("functions/create-todo.mjs");
    expect(error.status).toBeUndefined();
    expect(error.expose).toBe(false);
  });

  it("rejects one name defined twice", async () => {
    const error = await loadError(
      await functionsDir({ "foo.ts": plainQuery, "foo.js": plainQuery }),
    );
    expect(error.code).toBe("INVALID_FUNCTION");
    expect(error.message).toBe(
      "functions/foo.js and functions/foo.ts both define function foo; keep one.",
    );
  });

  it.each([
    ["a file that throws on import", "boom.mjs", `throw new Error("kaboom");\n`, "kaboom."],
    ["a JavaScript syntax error", "broken.mjs", "export default {\n", ""],
    ["a TypeScript syntax error", "broken.ts", "export default { type: 'query', handler( };\n", ""],
    ["a missing import", "lost.ts", `import { x } from "./_nowhere.js";\nexport default x;\n`, ""],
  ])("reports %s as FUNCTION_LOAD_FAILED naming the file", async (_case, file, text, reason) => {
    const error = await loadError(await functionsDir({ [file]: text }));
    expect(error.code).toBe("FUNCTION_LOAD_FAILED");
    expect(error.message).toMatch(
      new RegExp(`^functions/${file.replace(".", "\\.")} failed to load: .+`),
    );
    expect(error.message).toContain(reason);
    expect(error.message).not.toContain("\n");
    expect(error.cause).toBeDefined();
  });

  it.each([
    ["no default export", "export const handler = () => 1;\n", "default export"],
    ["a number", "export default 42;\n", "default export"],
    ["an unknown type", `export default { type: "job", handler() {} };\n`, `"type"`],
    ["no handler", `export default { type: "query" };\n`, `"handler"`],
    ["a bad auth", `export default { type: "query", auth: "admin", handler() {} };\n`, `"auth"`],
    [
      "args that are not schemas",
      `export default { type: "query", args: ["x"], handler() {} };\n`,
      `"args"`,
    ],
    [
      "an arg that is not a schema",
      `export default { type: "query", args: { x: "string" }, handler() {} };\n`,
      `"args.x"`,
    ],
  ])(
    "reports a default export with %s as INVALID_FUNCTION naming the file",
    async (_case, text, detail) => {
      const error = await loadError(await functionsDir({ "bad.mjs": text }));
      expect(error.code).toBe("INVALID_FUNCTION");
      expect(error.message).toMatch(/^functions\/bad\.mjs is not a function definition: /);
      expect(error.message).toContain(detail);
    },
  );

  it("accepts duck-typed schemas in a plain .mjs", async () => {
    const dir = await functionsDir({
      "echo.mjs": `const text = { safeParse: (v) => typeof v === "string" ? { success: true, data: v } : { success: false } };\nexport default { type: "query", args: { text }, handler: (_ctx, args) => args.text };\n`,
    });
    expect((await loadFunctions(dir)).has("echo")).toBe(true);
  });
});
