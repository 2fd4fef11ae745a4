// A fan-out server child: svc's WebSocket hub (`attachWebSocket`) over the
// sync core on SQLite, with the writer in the same process writing through
// the store, as a mutation would. Started by fanout.ts with BENCH_DB_PATH.
import { createServer } from "node:http";
import { adminAuth, createAuthContext } from "@svc/schema";
import { createStore } from "@svc/store";
import { openSqlite } from "@svc/store/sqlite";
import { attachWebSocket, createChangeLog, createSync, syncMigrations } from "@svc/sync";
import { fanoutManifest } from "./manifest.js";
import { callerOf } from "./protocol.js";
import { serveFanout } from "./server-loop.js";

const path = process.env.BENCH_DB_PATH;
if (path === undefined) throw new Error("BENCH_DB_PATH is not set");

const connection = openSqlite(path);
const log = createChangeLog({ db: connection.db, dialect: connection.dialect });
const store = createStore({
  db: connection.db,
  readDb: connection.readDb,
  dialect: connection.dialect,
  manifest: fanoutManifest,
  changeBus: log,
});
await store.migrate({ packages: [syncMigrations()] });
const sync = createSync({ store, log });

const http = createServer();
const hub = attachWebSocket(http, {
  sync,
  trustedOrigins: true,
  // The bench's tokens name the caller; what a session lookup costs is not measured here.
  authenticate: {
    resolvers: [
      (token) => {
        const caller = callerOf(token);
        return caller === null ? null : createAuthContext({ ...caller, via: "session" });
      },
    ],
  },
});

await serveFanout({
  http,
  connections: () => hub.connections,
  write: async (entity, data) => {
    await store.transaction(adminAuth, (db) => db.insert(entity, data));
  },
});
