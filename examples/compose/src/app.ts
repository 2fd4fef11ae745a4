// A third party's own express app composed from three svc packages: the
// entity store, auth-core's sign-in routes and caller gate, and sync's pull
// route over the store's durable change log. Its own routes sit beside them.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  authenticate,
  authModule,
  clearedSessionCookie,
  SESSION_COOKIE,
} from "@svc/auth-core/express";
import { parseManifest } from "@svc/schema";
import { errorHandler, getCaller } from "@svc/schema/http";
import { composeModules, createStore, type SvcRuntime } from "@svc/store";
import { jsonBody, storeModule } from "@svc/store/express";
import { openPostgres } from "@svc/store/pg";
import { openSqlite } from "@svc/store/sqlite";
import { createChangeLog } from "@svc/sync";
import { syncModule } from "@svc/sync/express";
import express from "express";

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
  // What every svc module is built from.
  const runtime: SvcRuntime = {
    db,
    dialect,
    store,
    now: Date.now,
    secret: options.secret,
    log: { error: console.error, warn: console.warn, info: console.info, debug: console.debug },
    devMode: false,
  };

  // The session cookie is `Secure`: serve the app over HTTPS (bearer tokens work either way).
  const cookie = { sameSite: "lax", secure: true } as const;
  // The three svc modules this app wants: /api/entities/... (and /api/batch),
  // /api/auth/... with the admin token and `svc_` sessions, /api/sync/pull.
  const auth = authModule(runtime, {
    schema: authSchema,
    adminToken: options.adminToken,
    router: { cookie, trustedOrigins: [] },
  });
  const modules = composeModules([storeModule(runtime), auth, syncModule(runtime, { changeLog })]);
  await store.migrate({ packages: [...modules.migrations] });
  await modules.start();

  const app = express();
  // Who calls: the modules' bearer tokens, or the session cookie.
  app.use(
    authenticate({
      resolvers: modules.resolvers,
      cookie: {
        name: SESSION_COOKIE,
        resolve: async (token) => modules.decorate(await auth.auth.resolveSession(token)),
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

  // The modules' routes, then one error handler for all of them.
  modules.routes(app);
  app.use(errorHandler());

  return {
    app,
    async close(): Promise<void> {
      await modules.close();
      await store.close();
    },
  };
}
