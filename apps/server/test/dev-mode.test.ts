import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../src/config.js";
import { startServer } from "../src/start-server.js";
import { ADMIN_TOKEN, type DisposableServer, startLoopbackServer, tempDir } from "./fixtures.js";
import { entity, writeTestApp } from "./test-app.js";

/** Writes a small app (one entity, two import-free functions) into `dir`. */
function writeApp(dir: string, trustedOrigins: string[]): string {
  const manifest = {
    manifest_version: 1,
    name: "scratch",
    version: "0.0.1",
    auth: { trustedOrigins },
    entities: [entity("Note", { text: "string" })],
  };
  return writeTestApp(dir, manifest, {
    boom: `export default { type: "mutation", handler: async () => { throw new Error("SELECT secret FROM keys WHERE token = 'hunter2'"); } };\n`,
    addNote: `export default { type: "mutation", handler: async (ctx, args) => ctx.db.insert("Note", { text: args.text }) };\n`,
  });
}

/** The app without trusted origins, served in dev mode from memory. */
function startDevServer(dir: string): Promise<DisposableServer> {
  return startLoopbackServer({
    SVC_DEV_MODE: "true",
    SVC_MANIFEST: writeApp(dir, []),
    SVC_DB_PATH: ":memory:",
  });
}

describe("dev mode", () => {
  it("creates a private admin token file and serves the reset endpoint in memory", async () => {
    using dir = tempDir();
    await using server = await startDevServer(dir.path);

    const tokenFile = join(dir.path, ".svc", "admin-token");
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(server.adminTokenFile).toBe(tokenFile);
    const token = readFileSync(tokenFile, "utf8").trim();
    expect(token).toBe(server.adminToken);
    expect(token).toMatch(/^[0-9a-f]{128}$/);

    const auth = { authorization: `Bearer ${token}` };
    const added = await fetch(`${server.url}/api/fn/addNote`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ text: "hi" }),
    });
    expect(added.status).toBe(200);
    const reset = await fetch(`${server.url}/api/__test__/reset`, {
      method: "POST",
      headers: auth,
    });
    expect(await reset.json()).toEqual({ reset: true });
    const notes = await fetch(`${server.url}/api/entities/Note`, { headers: auth });
    expect(await notes.json()).toEqual([]);
  });

  it("reflects any origin in CORS", async () => {
    using dir = tempDir();
    await using server = await startDevServer(dir.path);
    const response = await fetch(`${server.url}/api/entities/Note`, {
      method: "OPTIONS",
      headers: { origin: "http://anywhere.test", "access-control-request-method": "POST" },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("http://anywhere.test");
  });
});

describe("production mode", () => {
  it("refuses to boot without trusted origins, naming SVC_MANIFEST", async () => {
    using dir = tempDir();
    const manifest = writeApp(dir.path, []);
    const config = parseConfig({
      SVC_ADMIN_TOKEN: ADMIN_TOKEN,
      SVC_MANIFEST: manifest,
      SVC_PORT: "0",
    });
    await expect(startServer(config)).rejects.toThrow(ConfigError);
    await expect(startServer(config)).rejects.toThrow(/^SVC_MANIFEST: .*trustedOrigins/);
  });

  it("allows only trusted origins in CORS, keeps internals out of errors, and has no reset endpoint", async () => {
    using dir = tempDir();
    const manifest = writeApp(dir.path, ["https://app.example"]);
    const internal: unknown[] = [];
    await using server = await startLoopbackServer(
      {
        SVC_ADMIN_TOKEN: ADMIN_TOKEN,
        SVC_MANIFEST: manifest,
        SVC_DB_PATH: join(dir.path, "data.db"),
      },
      { onInternalError: (error) => internal.push(error) },
    );
    const preflight = (origin: string) =>
      fetch(`${server.url}/api/fn/addNote`, {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": "POST" },
      });
    expect(
      (await preflight("https://app.example")).headers.get("access-control-allow-origin"),
    ).toBe("https://app.example");
    expect(
      (await preflight("https://evil.example")).headers.get("access-control-allow-origin"),
    ).toBeNull();
    // Regression: browsers could not read the next-page cursor of a list.
    // They read the request id too, to quote it when reporting a failure.
    const listed = await fetch(`${server.url}/api/entities/Note`, {
      headers: { origin: "https://app.example", authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(listed.headers.get("access-control-expose-headers")).toBe(
      "X-Next-Cursor,Idempotent-Replayed,X-Request-Id",
    );

    const boom = await fetch(`${server.url}/api/fn/boom`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(boom.status).toBe(500);
    const text = await boom.text();
    expect(text).not.toMatch(/SELECT|hunter2|at .*\.m?[jt]s/);
    expect(JSON.parse(text)).toEqual({
      error: { code: "FUNCTION_FAILED", message: expect.any(String) },
    });
    expect(internal).toHaveLength(1);
    expect(String((internal[0] as Error).cause)).toContain("hunter2");
  });
});
