import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { adminTokenResolver, authenticate } from "@svc/auth-core/express";
import { adminAuth } from "@svc/schema";
import { errorHandler } from "@svc/schema/http";
import { createStore } from "@svc/store";
import { openSqlite } from "@svc/store/sqlite";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { createSyncRouter } from "../src/express.js";
import { createChangeLog, createSync, startPruning, syncMigrations } from "../src/index.js";
import { syncManifest as manifest } from "./fixture.js";

// The README's example, run as written: a write through the store, then a
// pull over HTTP from the cursor taken before it.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups.length = 0;
});

describe("the README example", () => {
  it("runs as written: pull over HTTP, 400 and 410 in the error envelope", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-sync-readme-"));
    const previous = process.cwd();
    const env = { ...process.env };
    process.chdir(dir);
    process.env.SVC_ADMIN_TOKEN = "t".repeat(64);
    cleanups.push(() => {
      process.chdir(previous);
      process.env = env;
      rmSync(dir, { recursive: true, force: true });
    });

    // --- README example ---
    const { db, dialect } = openSqlite("data.db");
    const log = createChangeLog({ db, dialect, retention: { maxAgeMs: 24 * 60 * 60 * 1000 } });
    const store = createStore({ db, dialect, manifest, changeBus: log });
    await store.migrate({ packages: [syncMigrations()] });
    const sync = createSync({ store, log });
    const stopPruning = startPruning(log); // every minute, on an unref'd timer

    const app = express();
    app.use(authenticate({ resolvers: [adminTokenResolver(process.env.SVC_ADMIN_TOKEN ?? "")] }));
    app.use(createSyncRouter(sync)); // GET /api/sync/pull
    app.use(errorHandler());
    // --- end ---

    cleanups.push(() => store.close());
    cleanups.push(stopPruning);
    const server: Server = await new Promise((resolve) => {
      const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
    });
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/sync/pull`;
    const get = (query: string) =>
      fetch(`${base}${query}`, { headers: { authorization: `Bearer ${"t".repeat(64)}` } });

    const start = (await (await get("")).json()) as { cursor: string };
    const secret = await store.transaction(adminAuth, (tx) => tx.insert("Secret", { value: "x" }));
    const pulled = await get(`?since=${start.cursor}`);
    expect(pulled.headers.get("cache-control")).toBe("no-store");
    expect(await pulled.json()).toEqual({
      changes: [
        {
          cursor: expect.any(String),
          entity: "Secret",
          op: "insert",
          rowId: secret.id,
          row: secret,
        },
      ],
      cursor: expect.any(String),
      has_more: false,
    });
    const invalid = await get("?since=x");
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ error: { code: "INVALID_QUERY" } });
    const future = await get("?since=99");
    expect(future.status).toBe(410);
    expect(await future.json()).toMatchObject({ error: { code: "RESYNC_REQUIRED" } });
  });
});
