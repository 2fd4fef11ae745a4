import { randomBytes } from "node:crypto";
import { testDatabases } from "@svc/tooling/databases";
import { describe, expect, it } from "vitest";
import { createLocalBlobStore, FilesError } from "../src/index.js";
import { type FilesFixture, initUpload, useFiles, userAuth } from "./fixture.js";

const MiB = 1024 * 1024;
const clock = { now: 1_700_000_000_000 };

async function errorCode(res: Response): Promise<string> {
  return ((await res.json()) as { error: { code: string } }).error.code;
}

async function upload(
  fixture: FilesFixture,
  as: string,
  bytes: Uint8Array,
  contentType = "image/png",
) {
  const init = await initUpload(fixture, as, { size: bytes.length, contentType, name: "x.png" });
  const put = await fixture.call(init.upload.url, {
    method: "PUT",
    headers: init.upload.headers,
    body: bytes,
  });
  expect(put.status).toBe(204);
  const confirm = await fixture.call(`/api/files/${init.id}/confirm`, { as, method: "POST" });
  expect(confirm.status).toBe(200);
  return init;
}

/** A body sent in chunks with no Content-Length, so only the stream's own count can stop it. */
function chunked(total: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= total) return controller.close();
      const chunk = randomBytes(Math.min(64 * 1024, total - sent));
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
}

describe.each(testDatabases())("local files on $name", (database) => {
  const fixture = useFiles(
    database,
    (dir) => createLocalBlobStore({ dir, urlPrefix: "/api/files", now: () => clock.now }),
    { maxBytes: MiB, now: () => clock.now },
  );

  it("uploads (init, PUT, confirm) and serves the same bytes with their type", async () => {
    const f = fixture();
    const bytes = randomBytes(200_000);
    const init = await initUpload(f, "alice", { size: bytes.length, contentType: "image/png" });
    expect(init.id).toMatch(/^[0-9a-f]{40}$/);
    expect(init.upload.url).toMatch(new RegExp(`^/api/files/upload/${init.id}\\?token=`));
    expect((await f.call(`/api/files/${init.id}`, { as: "alice" })).status).toBe(404);
    const put = await f.call(init.upload.url, {
      method: "PUT",
      headers: init.upload.headers,
      body: bytes,
    });
    expect(put.status).toBe(204);
    const confirm = await f.call(`/api/files/${init.id}/confirm`, { as: "alice", method: "POST" });
    expect(await confirm.json()).toMatchObject({
      id: init.id,
      size: bytes.length,
      content_type: "image/png",
      status: "ready",
      url: `/api/files/${init.id}`,
    });
    const get = await f.call(`/api/files/${init.id}`, { as: "alice" });
    expect(get.status).toBe(200);
    expect(get.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await get.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it("refuses a declared size over the maximum, and stops a streamed body past it, leaving no file", async () => {
    const f = fixture();
    const big = await f.call("/api/files", {
      as: "alice",
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ size: 3 * MiB, contentType: "application/zip" }),
    });
    expect(big.status).toBe(413);
    expect(await errorCode(big)).toBe("FILE_TOO_LARGE");
    const init = await initUpload(f, "alice", { size: MiB, contentType: "application/zip" });
    // 3 MiB against a 1 MiB declaration, chunked: counted while streaming.
    const put = await f.call(init.upload.url, {
      method: "PUT",
      headers: init.upload.headers,
      body: chunked(3 * MiB),
      duplex: "half",
    } as RequestInit);
    expect(put.status).toBe(413);
    expect(await errorCode(put)).toBe("FILE_TOO_LARGE");
    expect(await f.filesOnDisk()).toStrictEqual([]);
    const confirm = await f.call(`/api/files/${init.id}/confirm`, { as: "alice", method: "POST" });
    expect(await errorCode(confirm)).toBe("UPLOAD_INCOMPLETE");
  });

  it("accepts a body as large as the maximum, streamed", async () => {
    const f = fixture();
    const init = await initUpload(f, "alice", {
      size: MiB,
      contentType: "application/octet-stream",
    });
    const put = await f.call(init.upload.url, {
      method: "PUT",
      body: chunked(MiB),
      duplex: "half",
    } as RequestInit);
    expect(put.status).toBe(204);
    expect(await f.filesOnDisk()).toStrictEqual([`${init.id.slice(0, 2)}/${init.id}`]);
  });

  it("refuses a reused, an expired and a tampered token", async () => {
    const f = fixture();
    const init = await initUpload(f, "alice", { size: 3, contentType: "text/plain" });
    expect((await f.call(init.upload.url, { method: "PUT", body: "abc" })).status).toBe(204);
    const again = await f.call(init.upload.url, { method: "PUT", body: "xyz" });
    expect(again.status).toBe(410);
    expect(await errorCode(again)).toBe("UPLOAD_EXPIRED");

    const late = await initUpload(f, "alice", { size: 3, contentType: "text/plain" });
    clock.now += 16 * 60 * 1000;
    const expired = await f.call(late.upload.url, { method: "PUT", body: "abc" });
    expect(await errorCode(expired)).toBe("UPLOAD_EXPIRED");

    const other = await initUpload(f, "alice", { size: 3, contentType: "text/plain" });
    const [path, token] = other.upload.url.split("?token=") as [string, string];
    const [expiry, mac] = decodeURIComponent(token).split(".") as [string, string];
    const longer = `${Number(expiry) + 3_600_000}.${mac}`;
    const tampered = await f.call(`${path}?token=${encodeURIComponent(longer)}`, {
      method: "PUT",
      body: "abc",
    });
    expect(await errorCode(tampered)).toBe("UPLOAD_EXPIRED");
    // A valid token for one file does not upload another.
    const swapped = await f.call(`/api/files/upload/${late.id}?token=${token}`, {
      method: "PUT",
      body: "abc",
    });
    expect(await errorCode(swapped)).toBe("UPLOAD_EXPIRED");
    expect(await f.filesOnDisk()).toHaveLength(1);
  });

  it.each([
    "/api/files/..%2f..%2f..%2fetc%2fpasswd",
    "/api/files/%2e%2e",
    "/api/files/..",
    `/api/files/${"A".repeat(40)}`,
    "/api/files/upload%2f..%2fx",
  ])("answers 404 for a path that is no file id: %s", async (path) => {
    const f = fixture();
    const res = await f.call(path, { as: "alice" });
    expect(res.status).toBe(404);
  });

  it("never builds a path from a key that is not a file id", async () => {
    const f = fixture();
    const blobs = createLocalBlobStore({ dir: f.dir, urlPrefix: "/api/files" });
    for (const key of ["../x", "..", `${"a".repeat(39)}/`, "%2e%2e"]) {
      await expect(blobs.head(key)).rejects.toBeInstanceOf(FilesError);
      await expect(blobs.delete(key)).rejects.toBeInstanceOf(FilesError);
    }
    const put = await f.call(`/api/files/upload/..%2f..%2fescape?token=1.${"a".repeat(43)}`, {
      method: "PUT",
      body: "abc",
    });
    expect(put.status).toBeGreaterThanOrEqual(400);
    expect(await f.filesOnDisk()).toStrictEqual([]);
  });

  it("refuses invalid content types and needs a signed-in caller", async () => {
    const f = fixture();
    for (const contentType of ["", "text", "text/plain\r\nX: y", "a b/c"]) {
      const res = await f.call("/api/files", {
        as: "alice",
        method: "POST",
        body: JSON.stringify({ size: 1, contentType }),
      });
      expect(await errorCode(res)).toBe("UNSUPPORTED_CONTENT_TYPE");
    }
    const anonymous = await f.call("/api/files", {
      method: "POST",
      body: JSON.stringify({ size: 1, contentType: "text/plain" }),
    });
    expect(anonymous.status).toBe(401);
  });

  it("lets whoever may read a referencing row read the file, and no one else", async () => {
    const f = fixture();
    const { id } = await upload(f, "alice", randomBytes(100));
    expect((await f.call(`/api/files/${id}`, { as: "bob" })).status).toBe(404);
    await f.store.transaction(userAuth("alice"), (db) =>
      db.insert("Todo", { title: "see attached", sharedWith: "bob", attachment: id }),
    );
    expect((await f.call(`/api/files/${id}`, { as: "bob" })).status).toBe(200);
    expect((await f.call(`/api/files/${id}`, { as: "carol" })).status).toBe(404);
    expect((await f.call(`/api/files/${id}`)).status).toBe(404);
    expect((await f.call(`/api/files/${id}`, { as: "admin" })).status).toBe(200);
  });

  it("refuses attaching a file one does not own or that is not confirmed", async () => {
    const f = fixture();
    const { id } = await upload(f, "alice", randomBytes(10));
    await expect(
      f.store.transaction(userAuth("bob"), (db) =>
        db.insert("Todo", { title: "mine now", attachment: id }),
      ),
    ).rejects.toMatchObject({ code: "INVALID_REFERENCE" });
    const pending = await initUpload(f, "alice", { size: 1, contentType: "text/plain" });
    await expect(
      f.store.transaction(userAuth("alice"), (db) =>
        db.insert("Todo", { title: "early", attachment: pending.id }),
      ),
    ).rejects.toMatchObject({ code: "INVALID_REFERENCE" });
  });

  it("lets only the owner or the admin delete a file", async () => {
    const f = fixture();
    const { id } = await upload(f, "alice", randomBytes(10));
    await f.store.transaction(userAuth("alice"), (db) =>
      db.insert("Todo", { title: "shared", sharedWith: "bob", attachment: id }),
    );
    const denied = await f.call(`/api/files/${id}`, { as: "bob", method: "DELETE" });
    expect(denied.status).toBe(403);
    expect(await errorCode(denied)).toBe("POLICY_DENIED");
    expect((await f.call(`/api/files/${id}`, { as: "carol", method: "DELETE" })).status).toBe(404);
    expect((await f.call(`/api/files/${id}`, { as: "alice", method: "DELETE" })).status).toBe(204);
    expect((await f.call(`/api/files/${id}`, { as: "alice" })).status).toBe(404);
    expect(await f.filesOnDisk()).toStrictEqual([]);
  });
});
