import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseManifest } from "@svc/schema";
import { errorHandler } from "@svc/schema/http";
import { createStore } from "@svc/store";
import { openSqlite } from "@svc/store/sqlite";
import { expectReadmeExampleIn } from "@svc/tooling/readme-example";
import express from "express";
import { describe, expect, it } from "vitest";
import {
  adminTokenResolver,
  authenticate,
  createAuthRouter,
  sessionResolver,
} from "../src/express.js";
import { createAuth } from "../src/index.js";

const manifest = parseManifest({
  manifest_version: 1,
  name: "readme",
  version: "1",
  entities: [{ name: "User", fields: [{ name: "email", type: "string", unique: true }] }],
});
const adminToken = "a".repeat(64);

describe("the README example", () => {
  it("runs as written and serves a guest sign-in and /me", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-auth-readme-"));
    const previous = process.cwd();
    process.chdir(dir);
    process.env.SVC_AUTH_SECRET = "s".repeat(32);
    try {
      // --- the README example, verbatim ---
      const { db, dialect } = openSqlite("data.db", { attach: { auth: "sessions.db" } });
      const store = createStore({ db, dialect, manifest });
      const auth = createAuth({
        store,
        database: { db, dialect, schema: "auth" },
        secret: process.env.SVC_AUTH_SECRET ?? "",
      });
      await store.migrate({ packages: auth.migrations });

      const app = express();
      app.use(authenticate({ resolvers: [adminTokenResolver(adminToken), sessionResolver(auth)] }));
      app.use(
        createAuthRouter(auth, { cookie: { sameSite: "lax", secure: true }, trustedOrigins: [] }),
      );
      app.use(errorHandler());
      // --- end ---
      const server = app.listen(0, "127.0.0.1");
      await new Promise((resolve) => server.once("listening", resolve));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        const guest = (await (
          await fetch(`${base}/api/auth/guest`, { method: "POST" })
        ).json()) as {
          token: string;
        };
        const me = await fetch(`${base}/api/auth/me`, {
          headers: { authorization: `Bearer ${guest.token}` },
        });
        expect(await me.json()).toMatchObject({ via: "guest", is_guest: true });
        const refused = await fetch(`${base}/api/auth/me`, {
          headers: { authorization: "Bearer svc_unknown" },
        });
        expect(refused.status).toBe(401);
        expect(await refused.json()).toMatchObject({ error: { code: "INVALID_TOKEN" } });
      } finally {
        await new Promise((resolve) => server.close(resolve));
        await store.close();
      }
    } finally {
      process.chdir(previous);
      delete process.env.SVC_AUTH_SECRET;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("matches the code in README.md", () => {
    expectReadmeExampleIn(new URL("../README.md", import.meta.url), new URL(import.meta.url));
  });
});
