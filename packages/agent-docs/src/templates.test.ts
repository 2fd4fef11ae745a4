import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { templateEntrySchema } from "./schemas.js";
import { listTemplates, SVC_REPOSITORY_URL, svcTemplates } from "./templates.js";

const examplesDir = fileURLToPath(new URL("../../../examples/", import.meta.url));

/** The example apps: every folder of `examples/` with a manifest. */
const examples = readdirSync(examplesDir)
  .filter((name) => existsSync(join(examplesDir, name, "svc.json")))
  .sort();

interface Field {
  readonly name: string;
  readonly type: string;
  readonly owner?: boolean;
  readonly unique?: boolean;
  readonly target?: string;
}

interface Manifest {
  readonly entities: readonly {
    readonly name: string;
    readonly fields: readonly Field[];
    readonly indexes?: readonly { readonly unique?: boolean }[];
  }[];
  readonly policies?: readonly Record<string, string>[];
  readonly rooms?: readonly unknown[];
  readonly functions?: string;
}

/** What a `shows` claim is checked against: an example's manifest, functions and page. */
interface Example {
  readonly dir: string;
  readonly manifest: Manifest;
  /** The entities the app declares, without the `User` every template carries. */
  readonly appEntities: Manifest["entities"];
  /** Every policy expression, joined. */
  readonly policies: string;
  /** Function files (not `_` helpers) by name. */
  readonly functions: ReadonlyMap<string, string>;
  /** Every file of the functions directory (helpers too), joined. */
  readonly functionCode: string;
  /** Every file of `web/`, joined; empty without a page. */
  readonly web: string;
  readonly dependencies: Readonly<Record<string, string>>;
}

function readSources(dir: string): Map<string, string> {
  if (!existsSync(dir)) return new Map();
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter(
    (entry) => entry.isFile() && /\.(ts|tsx|mts|js|mjs)$/.test(entry.name),
  );
  return new Map(
    files.map((entry) => {
      const path = join(entry.parentPath, entry.name);
      return [path.slice(dir.length + 1), readFileSync(path, "utf8")];
    }),
  );
}

function readExample(template: string): Example {
  const dir = join(examplesDir, template);
  const manifest = JSON.parse(readFileSync(join(dir, "svc.json"), "utf8")) as Manifest;
  const sources = readSources(join(dir, manifest.functions ?? "functions"));
  const functions = new Map(
    [...sources]
      .filter(([file]) => /^[A-Za-z]\w*\.\w+$/.test(file))
      .map(([file, code]) => [file.replace(/\.\w+$/, ""), code]),
  );
  const packagePath = join(dir, "package.json");
  const packageJson = existsSync(packagePath)
    ? (JSON.parse(readFileSync(packagePath, "utf8")) as { dependencies?: Record<string, string> })
    : {};
  return {
    dir,
    manifest,
    appEntities: manifest.entities.filter((entity) => entity.name !== "User"),
    policies: (manifest.policies ?? [])
      .flatMap((policy) => Object.entries(policy).filter(([key]) => key.startsWith("allow")))
      .map(([, expression]) => expression)
      .join("\n"),
    functions,
    functionCode: [...sources.values()].join("\n"),
    web: [...readSources(join(dir, "web")).values()].join("\n"),
    dependencies: packageJson.dependencies ?? {},
  };
}

const fields = (example: Example): Field[] =>
  example.appEntities.flatMap((entity) => entity.fields);
const someFunction = (example: Example, pattern: RegExp): boolean =>
  [...example.functions.values()].some((code) => pattern.test(code));

/**
 * Every feature a template may claim in `shows`, with what makes the claim
 * true. A claim outside this table fails the test, so each one is checked.
 */
const FEATURES: Readonly<Record<string, (example: Example) => boolean>> = {
  schema: (example) => example.appEntities.length > 0,
  "owner field": (example) => fields(example).some((field) => field.owner === true),
  references: (example) =>
    fields(example).some((field) => field.type === "id" && field.target !== undefined),
  "enum fields": (example) => fields(example).some((field) => field.type === "enum"),
  indexes: (example) => example.appEntities.some((entity) => (entity.indexes ?? []).length > 0),
  "unique fields": (example) =>
    fields(example).some((field) => field.unique === true) ||
    example.appEntities.some((entity) => (entity.indexes ?? []).some((index) => index.unique)),
  "row policies": (example) => example.policies !== "",
  "policy subqueries": (example) => /\bexists\(/.test(example.policies),
  organizations: (example) =>
    /\bauth\.tenantId\b/.test(example.policies) && /\brequireMember\(/.test(example.functionCode),
  roles: (example) =>
    /\bauth\.hasRole\(/.test(example.policies) || /\brole: \[/.test(example.functionCode),
  rooms: (example) => (example.manifest.rooms ?? []).length > 0,
  presence: (example) =>
    (example.manifest.rooms ?? []).length > 0 && /\busePresence[<(]/.test(example.web),
  query: (example) => someFunction(example, /export default query\(/),
  mutation: (example) => someFunction(example, /export default mutation\(/),
  action: (example) => someFunction(example, /export default action\(/),
  "action calling functions": (example) =>
    someFunction(example, /export default action\([\s\S]*ctx\.run(Query|Mutation)\(/),
  hooks: (example) => someFunction(example, /export default hook\(/),
  "account deletion cleanup": (example) =>
    someFunction(example, /export default hook\(\{\s*on: \{ delete: \{ entity: "User" \} \}/),
  "cursor pagination": (example) => someFunction(example, /\bcursor: z\.string\(\)\.optional\(\)/),
  "custom errors": (example) => /\bctx\.error\(/.test(example.functionCode),
  "admin token": (example) => /\bctx\.auth\.isAdmin\b/.test(example.functionCode),
  "email verification": (example) => /\bemailVerified\b/.test(example.functionCode),
  "external API call": (example) => /\bawait fetch\(/.test(example.functionCode),
  "environment settings": (example) => /\bprocess\.env\b|\benv\.[A-Z_]+/.test(example.functionCode),
  "seed data": (example) => existsSync(join(example.dir, "seed")),
  "React front end": (example) =>
    existsSync(join(example.dir, "web", "main.tsx")) &&
    "react" in example.dependencies &&
    "@svc/client" in example.dependencies,
  "magic-code sign-in": (example) => /\.sendMagicCode\(/.test(example.web),
  "password sign-in": (example) => /\.auth\.(login|register)\(/.test(example.web),
  "organization switching": (example) => /\.auth\.selectOrg\(/.test(example.web),
  "account deletion": (example) => /\.auth\.deleteAccount\(/.test(example.web),
  "API keys": (example) => /\.apiKeys\.(create|list|revoke)\(/.test(example.web),
  "live entity queries": (example) => /\buseQuery[<(]/.test(example.web),
  "live query functions": (example) => /\buseLiveQuery[<(]/.test(example.web),
  "React mutations": (example) => /\buseMutation[<(]/.test(example.web),
  "typed client": (example) => /generated by svc codegen/.test(example.web),
};

describe("svcTemplates", () => {
  it.each(svcTemplates.map((entry) => [entry.template, entry] as const))(
    "%s is a real example app with a valid entry",
    (template, entry) => {
      expect(existsSync(`${examplesDir}${template}/svc.json`)).toBe(true);
      expect(templateEntrySchema.parse(entry)).toEqual(entry);
      expect(entry.command).toBe(`npm create svc@latest my-app -- --template ${template}`);
      expect(entry.source).toBe(`${SVC_REPOSITORY_URL}/tree/main/examples/${template}`);
      expect(entry.shows.length).toBeGreaterThan(0);
      expect(new Set(entry.shows).size).toBe(entry.shows.length);
    },
  );

  it("has one entry per example app that has a manifest, and no other", () => {
    expect(examples).toEqual(
      expect.arrayContaining([
        "default",
        "todo",
        "chat",
        "shop",
        "consumer",
        "waitlist",
        "ai-chat",
      ]),
    );
    expect(svcTemplates.map((entry) => entry.template).sort()).toEqual(examples);
  });

  it.each(svcTemplates.flatMap((entry) => entry.shows.map((feature) => [entry.template, feature])))(
    "%s really has what it shows: %s",
    (template, feature) => {
      const check = FEATURES[feature];
      expect(check, `"${feature}" is not a known feature; add its check to FEATURES`).toBeDefined();
      expect(check?.(readExample(template))).toBe(true);
    },
  );

  it.each(examples.filter((name) => existsSync(join(examplesDir, name, "web"))))(
    "%s shows its React front end",
    (template) => {
      const entry = svcTemplates.find((candidate) => candidate.template === template);
      expect(entry?.shows).toContain("React front end");
    },
  );

  it.each([
    ["rooms", "rooms"],
    ["hooks", "hooks"],
    ["action", "action"],
    ["React front end", "React front end"],
  ])("claims %s wherever an example has them", (feature, claim) => {
    const check = FEATURES[feature];
    const having = examples.filter((template) => check?.(readExample(template)) === true);
    const claiming = svcTemplates
      .filter((entry) => entry.shows.includes(claim))
      .map((entry) => entry.template)
      .sort();
    expect(claiming).toEqual(having);
  });

  // A regression guard for the checks themselves: each must tell a template
  // that has the feature from one that has not.
  it.each([
    ["rooms", "chat", "default"],
    ["hooks", "shop", "todo"],
    ["organizations", "consumer", "shop"],
    ["seed data", "shop", "chat"],
    ["action", "ai-chat", "default"],
    ["external API call", "ai-chat", "todo"],
    ["password sign-in", "consumer", "todo"],
    ["API keys", "consumer", "shop"],
  ])("the %s check holds for %s and not for %s", (feature, has, lacks) => {
    const check = FEATURES[feature];
    expect(check?.(readExample(has))).toBe(true);
    expect(check?.(readExample(lacks))).toBe(false);
  });
});

describe("listTemplates", () => {
  const all = svcTemplates.map((entry) => entry.template);

  it.each([
    [undefined, all],
    ["", all],
    ["   ", all],
    ["row policies", all],
    ["TODO", ["todo"]],
    ["Default starter", ["default"]],
    ["Note entity", ["default"]],
    ["rooms", ["chat"]],
    ["presence", ["chat"]],
    ["seed data", ["shop"]],
    ["organizations", ["consumer"]],
    ["model endpoint", ["ai-chat"]],
    ["action calling functions", ["todo", "ai-chat"]],
    ["quokka", []],
  ])("filters by %j", (query, expected) => {
    expect(listTemplates(query).map((entry) => entry.template)).toEqual(expected);
  });

  it("hands out copies", () => {
    const [first] = listTemplates();
    first?.shows.push("changed");
    expect(listTemplates()[0]?.shows).not.toContain("changed");
  });
});
