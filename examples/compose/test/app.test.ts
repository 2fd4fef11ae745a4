// The composed app end to end over HTTP: its own routes, a password sign-in
// through auth-core's router, a write as the signed-in caller and a sync pull.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createComposedApp } from "../src/app.ts";

let base = "";
let stop: () => Promise<void> = async () => undefined;

before(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "compose-example-"));
  const { app, close } = await createComposedApp({
    dataDir,
    secret: "s".repeat(32),
    adminToken: "a".repeat(32),
  });
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stop = async () => {
    await new Promise((resolve) => server.close(resolve));
    await close();
    rmSync(dataDir, { recursive: true, force: true });
  };
});
after(() => stop());

async function call(path: string, init: { method?: string; token?: string; body?: unknown } = {}) {
  const response = await fetch(`${base}${path}`, {
    method: init.method ?? "GET",
    headers: {
      "content-type": "application/json",
      ...(init.token !== undefined && { authorization: `Bearer ${init.token}` }),
    },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
  return { status: response.status, body: await response.json() };
}

test("its own route answers", async () => {
  assert.deepEqual(await call("/hello"), { status: 200, body: { hello: "world" } });
});

test("a signed-in caller writes a note and pulls the change", async () => {
  const anonymous = await call("/api/auth/me");
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.body.error.code, "AUTH_REQUIRED");

  const signIn = await call("/api/auth/password/register", {
    method: "POST",
    body: { email: "ada@example.com", password: "correct horse battery" },
  });
  assert.equal(signIn.status, 200);
  const token: string = signIn.body.token;
  const me = await call("/api/auth/me", { token });
  assert.equal(me.body.user_id, signIn.body.user_id);

  const start = await call("/api/sync/pull", { token });
  assert.equal(start.status, 200);
  const note = await call("/notes", { method: "POST", token, body: { text: "hello" } });
  assert.equal(note.status, 201);
  assert.equal(note.body.ownerId, signIn.body.user_id);
  assert.deepEqual(
    (await call("/notes", { token })).body.map((row: { text: string }) => row.text),
    ["hello"],
  );

  const pulled = await call(`/api/sync/pull?since=${start.body.cursor}`, { token });
  assert.deepEqual(
    pulled.body.changes.map((change: { entity: string; op: string; rowId: string }) => [
      change.entity,
      change.op,
      change.rowId,
    ]),
    [["Note", "insert", note.body.id]],
  );
  // Another caller's pull and list do not see the note.
  assert.deepEqual((await call("/notes")).body, []);
});
