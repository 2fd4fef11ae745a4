import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const src = join(import.meta.dirname, "../src");
const sources = (dir: string): string[] =>
  readdirSync(join(src, dir))
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"))
    .map((name) => join(dir, name));
const files = sources(".");
const reactFiles = sources("react");

/** The packages `text` imports (relative imports left out). */
const packagesOf = (text: string): (string | undefined)[] =>
  [...text.matchAll(/from "([^"]+)"/g)]
    .map((match) => match[1])
    .filter((path) => !path?.startsWith("./") && !path?.startsWith("../"));

/**
 * The one package module the client imports: the live wire protocol,
 * defined once for the server and the client (see its header).
 */
const SHARED_FRAMES = "@svc/schema/live-frames";
const sharedFramesSource = join(import.meta.dirname, "../../schema/src/live-frames.ts");

describe("browser safety", () => {
  // The client must run in browsers without polyfills: only fetch, URL,
  // URLSearchParams, AbortController, crypto.getRandomValues, WebSocket
  // and the streams' TextDecoderStream.
  it.each(files)("%s uses no Node-only API and imports no package but the live frames", (name) => {
    const text = readFileSync(join(src, name), "utf8");
    expect(text).not.toMatch(/from "node:|require\(|\bBuffer\b|\bprocess\.|__dirname/);
    expect(packagesOf(text).filter((path) => path !== SHARED_FRAMES)).toEqual([]);
  });

  it("the shared live frames use no Node-only API and import nothing", () => {
    const text = readFileSync(sharedFramesSource, "utf8");
    expect(text).not.toMatch(/from "node:|require\(|\bBuffer\b|\bprocess\.|__dirname/);
    expect([...text.matchAll(/^import /gm)]).toEqual([]);
  });

  // `@svc/client/react` adds react (a peer dependency) and nothing else.
  it.each(reactFiles)("%s uses no Node-only API and imports only react", (name) => {
    const text = readFileSync(join(src, name), "utf8");
    expect(text).not.toMatch(/from "node:|require\(|\bBuffer\b|\bprocess\.|__dirname/);
    expect(packagesOf(text).filter((path) => path !== "react")).toEqual([]);
  });

  it("the main entry never reaches the react subpath", () => {
    for (const name of files) {
      expect(readFileSync(join(src, name), "utf8")).not.toMatch(/from "\.\/react\//);
    }
  });
});
