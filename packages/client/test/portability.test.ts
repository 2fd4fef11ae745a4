import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const src = join(import.meta.dirname, "../src");
const files = readdirSync(src).filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"));

describe("browser safety", () => {
  // The client must run in browsers without polyfills: only fetch, URL,
  // URLSearchParams, AbortController and crypto.getRandomValues.
  it.each(files)("%s uses no Node-only API and imports no package", (name) => {
    const text = readFileSync(join(src, name), "utf8");
    expect(text).not.toMatch(/from "node:|require\(|\bBuffer\b|\bprocess\.|__dirname/);
    const imports = [...text.matchAll(/from "([^"]+)"/g)].map((match) => match[1]);
    expect(imports.filter((path) => !path?.startsWith("./"))).toEqual([]);
  });
});
