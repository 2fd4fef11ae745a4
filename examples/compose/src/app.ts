// A third party's own express app composed from three svc packages: the
// entity store, auth-core's sign-in routes and caller gate, and sync's pull
// route over the store's durable change log. Its own routes sit beside them.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createAuth } from "@svc/auth-core";
import {
  adminTokenResolver,
  authenticate,
  clearedSessionCookie,
  createAuthRouter,
  SESSION_COOKIE,
  sessionResolver,
} from "@svc/auth-core/express";
import { parseManifest } from "@svc/schema";
import { errorHandler, getCaller } from "@svc/schema/http";
import { createStore } from "@svc/store";
import { createEntityRouter, jsonBody } from "@svc/store/express";
import { openPostgres } from "@svc/store/pg";
import { openSqlite } from "@svc/store/sqlite";
import { createChangeLog, createSync, syncMigrations } from "@svc/sync";
import { createSyncRouter } from "@svc/sync/express";
import express, { type Request } from "express";

export interface ComposeOptions {
  /** A Postgres connection string; without it the data lives in SQLite files under `dataDir`. */
  readonly databaseURL?: string | undefined;
  /** A directory for the SQLite files, or ":memory:". */
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

function openDatabase(options: ComposeOptions) {
  if (options.databaseURL !== undefined) {
    // On Postgres auth-core's tables live in the application database.
    return { database: openPostgres(options.databaseURL), authSchema: undefined };
  }
  // On SQLite auth-core keeps its sessions in an attached database file of their own.
  const database = openSqlite(databaseFile(options.dataDir, "data.db"), {
    attach: { auth: databaseFile(options.dataDir, "auth.db") },
  });
  return { database, authSchema: "auth" };
}

export async function createComposedApp(options: ComposeOptions) {
  const { database, authSchema } = openDatabase(options);
  const { db, dialect } = database;
  const changeLog = createChangeLog({ db, dialect });
  const store = createStore({ ...database, manifest, changeBus: changeLog });
  const auth = createAuth({
    store,
    database: { db, dialect, schema: authSchema },
    secret: options.secret,
  });
  await store.migrate({ packages: [...auth.migrations, syncMigrations()] });
  const sync = createSync({ store, log: changeLog });

  // The session cookie is `Secure`: serve the app over HTTPS (bearer tokens work either way).
  const cookie = { sameSite: "lax", secure: true } as const;
  const app = express();
  // Who calls: the admin token, or a `svc_` session (bearer or cookie).
  app.use(
    authenticate({
      resolvers: [adminTokenResolver(options.adminToken), sessionResolver(auth)],
      cookie: {
        name: SESSION_COOKIE,
        resolve: (token) => auth.resolveSession(token),
        // A stale cookie makes the caller anonymous and is cleared.
        clear: () => clearedSessionCookie(cookie),
      },
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
  app.use(createAuthRouter(auth, { cookie, trustedOrigins: [] }));
  app.use(createEntityRouter(store));
  app.use(createSyncRouter(sync));
  app.use(errorHandler<Request>());

  return {
    app,
    async close(): Promise<void> {
      await auth.close();
      await store.close();
    },
  };
}
