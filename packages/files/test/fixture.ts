import { mkdtemp, readdir, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { authErrorHandler, authenticate } from "@svc/auth-core/express";
import { adminAuth, createAuthContext, parseManifest } from "@svc/schema";
import { createStore, type Store, type StoreDatabase } from "@svc/store";
import { openPostgres } from "@svc/store/pg";
import { openSqlite } from "@svc/store/sqlite";
import {
  openTestDatabase,
  type TestDatabase,
  type TestDatabaseTarget,
} from "@svc/tooling/databases";
import express from "express";
import { afterEach, beforeEach } from "vitest";
import { createFilesRouter } from "../src/express.js";
import {
  type BlobStore,
  type CreateFilesOptions,
  createFiles,
  type Files,
  filesMigrations,
  isFileUploadPath,
} from "../src/index.js";

/** Todos are read by their owner and the user they are shared with. */
export const filesManifest = parseManifest({
  manifest_version: 1,
  name: "files-test",
  version: "1",
  entities: [
    {
      name: "Todo",
      fields: [
        { name: "title", type: "string" },
        { name: "ownerId", type: "string", owner: true },
        { name: "sharedWith", type: "string", optional: true },
        { name: "attachment", type: "file", optional: true },
      ],
    },
  ],
  policies: [
    {
      name: "own or shared todos",
      entity: "Todo",
      allowRead: "auth.userId == data.ownerId || auth.userId == data.sharedWith",
      allowInsert: "auth.userId != null",
      allowUpdate: "auth.userId == existing.ownerId",
      allowDelete: "auth.userId == existing.ownerId",
    },
  ],
});

export const userAuth = (userId: string) => createAuthContext({ userId, via: "session" });

function openTarget(target: TestDatabaseTarget): StoreDatabase {
  return openTestDatabase(target, { openSqlite, openPostgres }, { max: 4 });
}

/** What each test gets: a migrated store, the files core and a listening app. */
export interface FilesFixture {
  readonly store: Store;
  readonly files: Files;
  readonly dir: string;
  /** The app's origin, e.g. `http://127.0.0.1:1234`. */
  readonly base: string;
  /** A fetch as `user` (a bearer `user:<id>`, or `admin`), or anonymous. */
  call(path: string, init?: RequestInit & { as?: string }): Promise<Response>;
  /** Every file under the uploads directory (relative paths). */
  filesOnDisk(): Promise<string[]>;
}

/**
 * Registers hooks that give every test a fresh database, a files core over
 * `blobs(dir)` and an express app with the router, listening on loopback.
 */
export function useFiles(
  database: TestDatabase,
  makeBlobs: (dir: string) => BlobStore,
  options: Partial<CreateFilesOptions> = {},
): () => FilesFixture {
  let current: FilesFixture | undefined;
  let cleanup: (() => Promise<void>)[] = [];
  beforeEach(async () => {
    const target = await database.create();
    cleanup.push(() => database.destroy(target));
    const opened = openTarget(target);
    cleanup.push(() => opened.close());
    const dir = await mkdtemp(join(tmpdir(), "svc-files-"));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const store = createStore({ ...opened, manifest: filesManifest });
    await store.migrate({ packages: [filesMigrations()] });
    const files = createFiles({ store, db: opened.db, blobs: makeBlobs(dir), ...options });
    cleanup.push(async () => files.close());
    const app = express();
    const gate = authenticate({
      resolvers: [
        (token) =>
          token === "admin"
            ? adminAuth
            : token.startsWith("user:")
              ? userAuth(token.slice(5))
              : null,
      ],
    });
    // As apps/server's gate: the local upload PUT resolves no caller.
    app.use((req, res, next) =>
      isFileUploadPath(req, files.urlPrefix) ? next() : gate(req, res, next),
    );
    app.use(createFilesRouter(files));
    app.use(authErrorHandler());
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    cleanup.push(
      () =>
        new Promise((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    current = {
      store,
      files,
      dir,
      base,
      call: (path, init = {}) => {
        const { as, ...rest } = init;
        const headers = new Headers(rest.headers);
        if (as !== undefined)
          headers.set("Authorization", `Bearer ${as === "admin" ? "admin" : `user:${as}`}`);
        return fetch(path.startsWith("http") ? path : `${base}${path}`, {
          ...rest,
          headers,
          redirect: "manual",
        });
      },
      filesOnDisk: async () =>
        (await readdir(dir, { recursive: true, withFileTypes: true }))
          .filter((entry) => entry.isFile())
          .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1)),
    };
  });
  afterEach(async () => {
    const steps = cleanup.reverse();
    cleanup = [];
    current = undefined;
    for (const step of steps) await step();
  });
  return () => {
    if (current === undefined) throw new Error("the files fixture is used outside a test");
    return current;
  };
}

/** Starts an upload as `user` and returns the init answer. */
export async function initUpload(
  fixture: FilesFixture,
  as: string,
  body: { size: number; contentType: string; name?: string },
): Promise<{
  id: string;
  upload: { url: string; method: string; headers: Record<string, string> };
}> {
  const res = await fixture.call("/api/files", {
    as,
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`init answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as never;
}
