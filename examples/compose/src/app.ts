// A third party's own express app composed from three svc packages: the
// entity store, auth-core's sign-in routes and caller gate, and sync's pull
// route over the store's durable change log. Its own routes sit beside them.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createAuth } from "@svc/auth-core";
import {
  adminTokenResolver,
  authenticate,
  createAuthRouter,
  sessionResolver,
} from "@svc/auth-core/express";
import { parseManifest } from "@svc/schema";
import { errorHandler, getCaller } from "@svc/schema/http";
import { createStore } from "@svc/store";
import { createEntityRouter, jsonBody } from "@svc/store/express";
import { openSqlite } from "@svc/store/sqlite";
import { createChangeLog, createSync, syncMigrations } from "@svc/sync";
import { createSyncRouter } from "@svc/sync/express";
import express from "express";

export interface ComposeOptions {
  /** A directory for the database files, or ":memory:". */
  readonly dataDir: string;
  /** The deployment secret (at least 32 characters): keys sessions and codes. */
  readonly secret: string;
  /** The admin bearer token. */
  readonly adminToken: string;
}

const manifest = parseManifest(
  JSON.parse(readFileSync(new URL("../manifest.json", import.meta.url), "utf8")),
);

function databaseFile(dataDir: string, name: string): string {
  return dataDir === ":memory:" ? ":memory:" : join(dataDir, name);
}

export async function createComposedApp(options: ComposeOptions) {
  // auth-core keeps its sessions in an attached database of their own.
  const database = openSqlite(databaseFile(options.dataDir, "data.db"), {
    attach: { auth: databaseFile(options.dataDir, "auth.db") },
  });
  const { db, dialect } = database;
  const changeLog = createChangeLog({ db, dialect });
  const store = createStore({ ...database, manifest, changeBus: changeLog });
  const auth = createAuth({
    store,
    database: { db, dialect, schema: "auth" },
    secret: options.secret,
  });
  await store.migrate({ packages: [...auth.migrations, syncMigrations()] });
  const sync = createSync({ store, log: changeLog });

  const app = express();
  // Who calls: the admin token, or a `svc_` session (bearer or cookie).
  app.use(
    authenticate({
      resolvers: [adminTokenResolver(options.adminToken), sessionResolver(auth)],
      cookie: { name: "svc_session", resolve: (token) => auth.resolveSession(token) },
    }),
  );

  // The app's own routes.
  app.get("/hello", (_req, res) => {
    res.json({ hello: "world" });
  });
  app.post("/notes", jsonBody(64 * 1024), async (req, res) => {
    const caller = getCaller(req);
    const note = await store.transaction(caller, (tx) =>
      tx.insert("Note", { text: String(req.body?.text ?? ""), ownerId: caller.userId }),
    );
    res.status(201).json(note);
  });
  app.get("/notes", async (req, res) => {
    const page = await store.reader(getCaller(req)).query("Note", { limit: 100 });
    res.json(page.rows);
  });

  // svc's routes: /api/auth/..., /api/entities/..., /api/sync/pull.
  // The session cookie is `Secure`: serve the app over HTTPS (bearer tokens work either way).
  app.use(
    createAuthRouter(auth, { cookie: { sameSite: "lax", secure: true }, trustedOrigins: [] }),
  );
  app.use(createEntityRouter(store));
  app.use(createSyncRouter(sync));
  app.use(errorHandler());

  return {
    app,
    async close(): Promise<void> {
      await auth.close();
      await store.close();
    },
  };
}
