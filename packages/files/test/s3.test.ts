import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { testDatabases } from "@svc/tooling/databases";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createS3BlobStore } from "../src/index.js";
import { initUpload, useFiles } from "./fixture.js";

// A real S3-compatible server (s3rver) on an ephemeral loopback port.
let server: S3rver;
let endpoint = "";
let dir = "";
const credentials = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-s3rver-"));
  server = new S3rver({
    port: 0,
    address: "127.0.0.1",
    silent: true,
    directory: dir,
    configureBuckets: [{ name: "uploads", configs: [] }],
  });
  const { port } = await server.run();
  endpoint = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe.each(testDatabases())("s3 files on $name", (database) => {
  const fixture = useFiles(database, () =>
    createS3BlobStore({ bucket: "uploads", endpoint, ...credentials }),
  );

  it("uploads by presigned PUT, confirms, and redirects reads to a signed URL", async () => {
    const f = fixture();
    const bytes = new TextEncoder().encode("hello from s3");
    const init = await initUpload(f, "alice", { size: bytes.length, contentType: "text/plain" });
    // Path-style, straight to the store: the bytes never pass through svc.
    expect(init.upload.url.startsWith(`${endpoint}/uploads/${init.id}?`)).toBe(true);
    expect(init.upload.url).toContain("X-Amz-SignedHeaders=content-length%3Bcontent-type%3Bhost");
    const put = await fetch(init.upload.url, {
      method: "PUT",
      headers: init.upload.headers,
      body: bytes,
    });
    expect(put.status).toBe(200);
    const confirm = await f.call(`/api/files/${init.id}/confirm`, { as: "alice", method: "POST" });
    expect(await confirm.json()).toMatchObject({
      id: init.id,
      size: bytes.length,
      status: "ready",
    });
    const get = await f.call(`/api/files/${init.id}`, { as: "alice" });
    expect(get.status).toBe(302);
    const location = get.headers.get("location") ?? "";
    expect(location).toContain("X-Amz-Signature=");
    const served = await fetch(location);
    expect(served.status).toBe(200);
    expect(await served.text()).toBe("hello from s3");
    expect((await f.call(`/api/files/${init.id}`, { as: "bob" })).status).toBe(404);
    expect((await f.call(`/api/files/${init.id}`, { as: "alice", method: "DELETE" })).status).toBe(
      204,
    );
    expect((await fetch(location)).status).toBe(404);
  });

  it("does not serve svc's own upload route: the bytes go to the bucket", async () => {
    const f = fixture();
    const init = await initUpload(f, "alice", { size: 3, contentType: "text/plain" });
    const put = await f.call(`/api/files/upload/${init.id}?token=x`, {
      method: "PUT",
      body: "abc",
    });
    expect(put.status).toBe(501);
    expect(((await put.json()) as { error: { code: string } }).error.code).toBe(
      "FILES_NOT_CONFIGURED",
    );
  });

  it("answers UPLOAD_INCOMPLETE when the object is missing or has another size", async () => {
    const f = fixture();
    const init = await initUpload(f, "alice", { size: 5, contentType: "text/plain" });
    const missing = await f.call(`/api/files/${init.id}/confirm`, { as: "alice", method: "POST" });
    expect(missing.status).toBe(409);
    const client = new S3Client({
      region: "us-east-1",
      endpoint,
      forcePathStyle: true,
      credentials,
    });
    await client.send(
      new PutObjectCommand({ Bucket: "uploads", Key: init.id, Body: "not five bytes" }),
    );
    client.destroy();
    const wrong = await f.call(`/api/files/${init.id}/confirm`, { as: "alice", method: "POST" });
    expect(wrong.status).toBe(409);
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe(
      "UPLOAD_INCOMPLETE",
    );
  });
});
