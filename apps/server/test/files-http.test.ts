import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { testDatabases } from "@svc/tooling/databases";
import { beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../src/config.js";
import { appServerPerTest } from "./app-server.js";
import {
  type AuthTestServer,
  errorOf,
  post,
  registerPassword,
  request,
  TRUSTED_ORIGIN,
} from "./auth-fixtures.js";
import { entity, OWNER, signInManifest, writeTestApp } from "./test-app.js";

// File storage through the composed server, on every database: the local
// provider's init → PUT (no bearer: the one-time token) → confirm → GET, a
// body past SVC_BODY_LIMIT_BYTES streamed, reads through a referencing row's
// policy, and the s3 provider's boot refusal.

const BODY_LIMIT = 2048;

function writeApp(dir: string): string {
  const manifest = signInManifest("files-app", {
    entities: [
      entity("Doc", {
        title: "string",
        ownerId: OWNER,
        sharedWith: { type: "string", optional: true },
        attachment: { type: "file", optional: true },
      }),
    ],
    policies: [
      {
        name: "own or shared docs",
        entity: "Doc",
        allowRead: "auth.userId == data.ownerId || auth.userId == data.sharedWith",
        allowInsert: "auth.userId != null",
      },
    ],
  });
  return writeTestApp(dir, manifest);
}

describe.each(testDatabases())("files through the server on $name", (database) => {
  const app = appServerPerTest(database, {
    writeApp,
    env: ({ dir }) => ({
      SVC_RATE_LIMIT: "off",
      SVC_BODY_LIMIT_BYTES: String(BODY_LIMIT),
      SVC_FILES_DIR: join(dir, "uploads"),
    }),
  });
  let server: AuthTestServer;

  beforeEach(() => {
    server = app.server;
  });

  it("uploads past the JSON body limit without a bearer, then serves it to readers of a referencing row only", async () => {
    const ada = await registerPassword(server, "ada@example.com");
    const bob = await registerPassword(server, "bob@example.com");
    const eve = await registerPassword(server, "eve@example.com");
    const bytes = randomBytes(BODY_LIMIT * 50);
    const init = await post(
      server,
      "/api/files",
      { size: bytes.length, contentType: "application/pdf", name: "report.pdf" },
      { token: ada.token },
    );
    expect(init.status).toBe(201);
    const { id, upload } = (await init.json()) as {
      id: string;
      upload: { url: string; headers: Record<string, string> };
    };
    // The browser's cross-origin PUT: no bearer, no cookie; CORS still answers.
    const put = await fetch(`${server.url}${upload.url}`, {
      method: "PUT",
      headers: { ...upload.headers, origin: TRUSTED_ORIGIN },
      body: bytes,
    });
    expect(put.status).toBe(204);
    expect(put.headers.get("access-control-allow-origin")).toBe(TRUSTED_ORIGIN);
    const confirm = await post(server, `/api/files/${id}/confirm`, {}, { token: ada.token });
    expect(confirm.status).toBe(200);
    expect(readdirSync(join(app.dir, "uploads", id.slice(0, 2)))).toEqual([id]);

    const doc = await post(
      server,
      "/api/entities/Doc",
      { title: "shared", sharedWith: bob.user_id, attachment: id },
      { token: ada.token },
    );
    expect(doc.status).toBe(201);
    const asBob = await request(server, "GET", `/api/files/${id}`, { token: bob.token });
    expect(asBob.status).toBe(200);
    expect(asBob.headers.get("content-type")).toBe("application/pdf");
    expect(Buffer.from(await asBob.arrayBuffer()).equals(bytes)).toBe(true);
    expect((await request(server, "GET", `/api/files/${id}`, { token: eve.token })).status).toBe(
      404,
    );
    expect((await request(server, "GET", `/api/files/${id}`)).status).toBe(404);
    // Eve cannot take Ada's file into a row of her own.
    const stolen = await errorOf(
      post(server, "/api/entities/Doc", { title: "mine", attachment: id }, { token: eve.token }),
    );
    expect(stolen).toMatchObject({ status: 400, code: "INVALID_REFERENCE" });
    const denied = await errorOf(
      request(server, "DELETE", `/api/files/${id}`, { token: bob.token }),
    );
    expect(denied).toMatchObject({ status: 403, code: "POLICY_DENIED" });
  });

  it("refuses a reused upload token and a caller without a session", async () => {
    const ada = await registerPassword(server, "ada@example.com");
    const anonymous = await errorOf(
      post(server, "/api/files", { size: 3, contentType: "text/plain" }),
    );
    expect(anonymous).toMatchObject({ status: 401, code: "AUTH_REQUIRED" });
    const init = (await (
      await post(server, "/api/files", { size: 3, contentType: "text/plain" }, { token: ada.token })
    ).json()) as { upload: { url: string } };
    const first = await fetch(`${server.url}${init.upload.url}`, { method: "PUT", body: "abc" });
    expect(first.status).toBe(204);
    const again = await errorOf(
      fetch(`${server.url}${init.upload.url}`, { method: "PUT", body: "abc" }),
    );
    expect(again).toMatchObject({ status: 410, code: "UPLOAD_EXPIRED" });
  });
});

describe("files configuration at boot", () => {
  it.each(["SVC_S3_BUCKET", "SVC_S3_ACCESS_KEY", "SVC_S3_SECRET_KEY"])(
    "stops the boot for s3 without %s, naming it",
    (missing) => {
      const env: Record<string, string> = {
        SVC_DEV_MODE: "true",
        SVC_FILES_PROVIDER: "s3",
        SVC_S3_BUCKET: "uploads",
        SVC_S3_ACCESS_KEY: "key",
        SVC_S3_SECRET_KEY: "secret",
      };
      delete env[missing];
      expect(() => parseConfig(env)).toThrow(new RegExp(`^${missing}: must be set`));
    },
  );
});
