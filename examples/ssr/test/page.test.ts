import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { parseConfig, type RunningServer, startServer } from "@svc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPageServer } from "../src/page-server.mjs";

// The example page against a real svc server (the todo app, in memory):
// the visitor's todos are in the first HTML, escaped, with the state the
// browser script starts from; the client build is served, nothing else.

const TODO_MANIFEST = resolve(import.meta.dirname, "../../todo/svc.json");

let svc: RunningServer;
let page: Server;
let pageURL: string;

beforeAll(async () => {
  svc = await startServer(
    parseConfig({
      SVC_PORT: "0",
      SVC_HOST: "127.0.0.1",
      SVC_MANIFEST: TODO_MANIFEST,
      SVC_DB_PATH: ":memory:",
      SVC_DEV_MODE: "true",
      SVC_ADMIN_TOKEN: "e".repeat(128),
      SVC_RATE_LIMIT: "off",
    }),
  );
  page = createPageServer({ svcURL: svc.url });
  await new Promise<void>((done) => page.listen(0, "127.0.0.1", done));
  pageURL = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((done) => page?.close(done));
  await svc?.close({ drainSeconds: 0 });
});

async function signIn(email: string): Promise<string> {
  const post = (path: string, body: unknown) =>
    fetch(`${svc.url}${path}`, { method: "POST", body: JSON.stringify(body) }).then(
      (response) => response.json() as Promise<Record<string, string>>,
    );
  const { dev_code: code } = await post("/api/auth/magic/send", { email });
  const { token } = await post("/api/auth/magic/verify", { email, code });
  return token ?? "";
}

async function createTodo(token: string, title: string): Promise<void> {
  const response = await fetch(`${svc.url}/api/fn/createTodo`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: JSON.stringify({ title }),
  });
  expect(response.status).toBe(200);
}

describe("the server-rendered page", () => {
  it("shows the visitor's todos in its HTML, escaped, with the state to hydrate from", async () => {
    const token = await signIn("ada@example.com");
    await createTodo(token, "b <img src=x onerror=alert(1)>");
    await createTodo(token, "a </script><script>alert(2)</script>");
    const other = await signIn("eve@example.com");
    await createTodo(other, "not Ada's");

    const response = await fetch(pageURL, { headers: { cookie: `svc_session=${token}` } });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain("a &#60;/script&#62;&#60;script&#62;alert(2)&#60;/script&#62;</li>");
    expect(html).toContain("b &#60;img src=x onerror=alert(1)&#62;</li>");
    expect(html).not.toContain("<img");
    expect(html).not.toContain("not Ada");
    expect(html.indexOf("a &#60;")).toBeLessThan(html.indexOf("b &#60;"));
    // One </script> per script tag: the embedded state cannot close one early.
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    const state = /<script type="application\/json" id="svc-state">(.*?)<\/script>/s.exec(
      html,
    )?.[1];
    const parsed = JSON.parse(state ?? "null") as { rows: Record<string, { title: string }[]> };
    expect(Object.values(parsed.rows)[0]?.map((row) => row.title)).toEqual([
      "a </script><script>alert(2)</script>",
      "b <img src=x onerror=alert(1)>",
    ]);
  });

  it("asks an anonymous visitor to sign in", async () => {
    const html = await (await fetch(pageURL)).text();
    expect(html).toContain("Sign in to see your todos.");
    expect(html).toContain('<ul id="todos"></ul>');
  });

  it("serves the client build and nothing outside it", async () => {
    const script = await fetch(`${pageURL}/vendor/svc-client/index.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toContain("text/javascript");
    expect(await script.text()).toContain("createClient");
    for (const path of [
      "/vendor/svc-client/../package.json",
      "/vendor/svc-client/%2e%2e/package.json",
      "/vendor/svc-client/..%2f..%2fpackage.json",
      "/vendor/svc-client/index.d.ts",
      "/elsewhere",
    ]) {
      expect((await fetch(`${pageURL}${path}`)).status, path).toBe(404);
    }
  });
});
