import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { testDatabases } from "@svc/tooling/databases";
import { beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../src/config.js";
import type { RunningServer } from "../src/start-server.js";
import { appServerPerTest, startTestServerOn } from "./app-server.js";
import { adminRequest, databaseEnv, startTestServer } from "./fixtures.js";
import { entity, testManifest, writeTestApp } from "./test-app.js";

// Issue 21: field values had no size bound (a caller stored a 1,000,000-
// character title), and page cursors were unsigned base64 JSON, so an
// edited cursor was accepted although the docs promise INVALID_CURSOR.

const NOTE_FUNCTION = `export default {
  type: "mutation",
  handler: async (ctx, args) => ({ id: (await ctx.db.insert("Note", args)).id }),
};
`;

function writeApp(dir: string): string {
  const manifest = testManifest("store-limits", {
    entities: [
      entity("Note", {
        title: "string",
        body: { type: "string", optional: true },
        tag: { type: "string", optional: true, maxBytes: 100 },
      }),
    ],
    functions: "functions",
  });
  const path = writeTestApp(dir, manifest);
  writeFileSync(join(dir, "functions", "saveNote.js"), NOTE_FUNCTION);
  return path;
}

async function errorOf(response: Response): Promise<{ status: number; code: string }> {
  const body = (await response.json()) as { error: { code: string } };
  return { status: response.status, code: body.error.code };
}

describe("SVC_MAX_FIELD_BYTES and SVC_MAX_ROW_BYTES", () => {
  const base = { SVC_DEV_MODE: "true" };

  it("default to 64 KiB and 1 MiB", () => {
    expect(parseConfig(base).storeLimits).toEqual({
      maxFieldBytes: 64 * 1024,
      maxRowBytes: 1024 * 1024,
    });
  });

  it("take byte counts", () => {
    const config = parseConfig({ ...base, SVC_MAX_FIELD_BYTES: "1000", SVC_MAX_ROW_BYTES: "5000" });
    expect(config.storeLimits).toEqual({ maxFieldBytes: 1000, maxRowBytes: 5000 });
  });

  it.each([
    ["SVC_MAX_FIELD_BYTES", "0"],
    ["SVC_MAX_FIELD_BYTES", "lots"],
    ["SVC_MAX_ROW_BYTES", String(64 * 1024 * 1024 + 1)],
  ])("refuse %s=%s, naming the variable", (name, value) => {
    expect(() => parseConfig({ ...base, [name]: value })).toThrow(name);
  });
});

describe.each(testDatabases())("store limits through the server on $name", (database) => {
  const limits = { SVC_MAX_FIELD_BYTES: "1000", SVC_MAX_ROW_BYTES: "1500" };
  const app = appServerPerTest(database, {
    scope: "suite",
    writeApp,
    env: limits,
    start: startTestServerOn,
  });
  let server: RunningServer;
  /** What the suite's server runs with, for others on the same database. */
  let env: Record<string, string>;

  beforeAll(() => {
    server = app.server;
    env = { ...databaseEnv(app.target), SVC_MANIFEST: app.manifest, ...limits };
  });

  it("refuses a value past the bound with 413 FIELD_TOO_LARGE through every door", async () => {
    const big = "x".repeat(1001);
    const created = await adminRequest(server, "POST", "/api/entities/Note", { title: "ok" });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const doors: [string, Response][] = [
      ["entity insert", await adminRequest(server, "POST", "/api/entities/Note", { title: big })],
      [
        "entity patch",
        await adminRequest(server, "PATCH", `/api/entities/Note/${id}`, { body: big }),
      ],
      [
        "batch",
        await adminRequest(server, "POST", "/api/batch", {
          operations: [{ op: "insert", entity: "Note", data: { title: big } }],
        }),
      ],
      ["function ctx.db", await adminRequest(server, "POST", "/api/fn/saveNote", { title: big })],
      [
        "a field's own maxBytes",
        await adminRequest(server, "POST", "/api/entities/Note", {
          title: "ok",
          tag: "t".repeat(101),
        }),
      ],
    ];
    for (const [door, response] of doors) {
      expect({ door, ...(await errorOf(response)) }).toEqual({
        door,
        status: 413,
        code: "FIELD_TOO_LARGE",
      });
    }
    const row = await adminRequest(server, "GET", `/api/entities/Note/${id}`);
    expect(await row.json()).toMatchObject({ title: "ok", body: null });
    const fits = await adminRequest(server, "POST", "/api/fn/saveNote", {
      title: "x".repeat(1000),
    });
    expect(fits.status).toBe(200);
  });

  it("refuses a row past SVC_MAX_ROW_BYTES with 413 ROW_TOO_LARGE", async () => {
    const response = await adminRequest(server, "POST", "/api/entities/Note", {
      title: "x".repeat(800),
      body: "y".repeat(800),
    });
    expect(await errorOf(response)).toEqual({ status: 413, code: "ROW_TOO_LARGE" });
  });

  it("answers an edited, forged or truncated page cursor with 400 INVALID_CURSOR", async () => {
    for (const title of ["c1", "c2", "c3"]) {
      await adminRequest(server, "POST", "/api/entities/Note", { title });
    }
    const first = await adminRequest(server, "GET", "/api/entities/Note?limit=1");
    const cursor = first.headers.get("x-next-cursor") ?? "";
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    const [payload = "", mac = ""] = cursor.split(".");
    const position = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    const base64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const lastChar = mac.at(-1) === "A" ? "B" : "A";
    const edited: [string, string][] = [
      ["forged (unsigned)", base64({ o: "id:asc", v: null, i: "0".repeat(40) })],
      ["with an edited position", `${base64({ ...position, i: "0".repeat(40) })}.${mac}`],
      ["with an edited signature", `${payload}.${mac.slice(0, -1)}${lastChar}`],
      ["truncated", cursor.slice(0, -2)],
    ];
    for (const [label, text] of edited) {
      const response = await adminRequest(
        server,
        "GET",
        `/api/entities/Note?limit=1&cursor=${encodeURIComponent(text)}`,
      );
      expect({ label, ...(await errorOf(response)) }).toEqual({
        label,
        status: 400,
        code: "INVALID_CURSOR",
      });
    }
    const next = await adminRequest(server, "GET", `/api/entities/Note?limit=1&cursor=${cursor}`);
    expect(next.status).toBe(200);
  });

  it("accepts a cursor on another server with the same secret, and refuses it under another", async () => {
    const first = await adminRequest(server, "GET", "/api/entities/Note?limit=1");
    const cursor = first.headers.get("x-next-cursor") ?? "";
    const [firstRow] = (await first.json()) as { id: string }[];
    const path = `/api/entities/Note?limit=1&cursor=${cursor}`;
    // Another server on the same database, keyed by the same admin token.
    await using again = await startTestServer(env);
    const next = await adminRequest(again, "GET", path);
    expect(next.status).toBe(200);
    const [nextRow] = (await next.json()) as { id: string }[];
    expect(nextRow?.id).not.toBe(firstRow?.id);
    await using other = await startTestServer({ ...env, SVC_AUTH_SECRET: "z".repeat(64) });
    expect(await errorOf(await adminRequest(other, "GET", path))).toEqual({
      status: 400,
      code: "INVALID_CURSOR",
    });
  });
});
