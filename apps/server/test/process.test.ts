import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { matchTarget, testDatabases } from "@svc/tooling/databases";
import { describe, expect, it } from "vitest";
import { appPerTest } from "./app-server.js";
import { ADMIN_TOKEN, databaseEnv, TODO_MANIFEST, tempDir } from "./fixtures.js";
import { type ServerProcess, SPAWN_BASE_ENV, spawnedPerTest } from "./process.js";
import { entity, testManifest, writeTestApp } from "./test-app.js";
import { connectWs } from "./ws-client.js";

const spawn = spawnedPerTest();

function start(env: Record<string, string>): ServerProcess {
  return spawn({ ...SPAWN_BASE_ENV, SVC_MANIFEST: TODO_MANIFEST, ...env });
}

describe("the svc-server process", () => {
  it.each([
    ["SVC_ADMIN_TOKEN", { SVC_ADMIN_TOKEN: "" }],
    ["SVC_CORS_ORIGIN", { SVC_CORS_ORIGIN: "*" }],
    ["SVC_PORT", { SVC_PORT: "-1" }],
    ["SVC_MANIFEST", { SVC_MANIFEST: "/nonexistent/svc.json" }],
    ["SVC_COOKIE_SAME_SITE", { SVC_COOKIE_SAME_SITE: "sometimes" }],
    ["SVC_COOKIE_SECURE", { SVC_COOKIE_SAME_SITE: "none", SVC_COOKIE_SECURE: "false" }],
    ["SVC_AUTH_SECRET", { SVC_AUTH_SECRET: "short" }],
    ["SVC_RATE_LIMIT", { SVC_RATE_LIMIT: "maybe" }],
    ["SVC_EMAIL_PROVIDER", { SVC_EMAIL_PROVIDER: "carrier-pigeon" }],
    ["SVC_EMAIL_FROM", { SVC_EMAIL_PROVIDER: "resend", SVC_EMAIL_API_KEY: "re_x" }],
    ["SVC_CAPTCHA_PROVIDER", { SVC_CAPTCHA_PROVIDER: "nocaptcha", SVC_CAPTCHA_SECRET: "s" }],
    [
      "SVC_OAUTH_GOOGLE_REDIRECT",
      {
        SVC_OAUTH_GOOGLE_CLIENT_ID: "id",
        SVC_OAUTH_GOOGLE_CLIENT_SECRET: "secret",
        SVC_OAUTH_GOOGLE_REDIRECT: "not a url",
      },
    ],
    ["SVC_OIDC_CORP_ISSUER", { SVC_OIDC_CORP_CLIENT_ID: "id", SVC_OIDC_CORP_CLIENT_SECRET: "s" }],
    ["SVC_LOG_LEVEL", { SVC_LOG_LEVEL: "verbose" }],
    ["SVC_LOG_FORMAT", { SVC_LOG_FORMAT: "xml" }],
    ["SVC_ACCESS_LOG", { SVC_ACCESS_LOG: "sometimes" }],
    [
      "SVC_OIDC_CORP_ISSUER",
      {
        SVC_PUBLIC_URL: "https://svc.example",
        SVC_OIDC_CORP_ISSUER: "http://127.0.0.1:9/",
        SVC_OIDC_CORP_CLIENT_ID: "id",
        SVC_OIDC_CORP_CLIENT_SECRET: "s",
      },
    ],
  ])("refuses to boot on a bad %s with one line naming it", async (variable, env) => {
    const { code, stderr } = await start(env).exited;
    expect(code).toBe(1);
    const lines = stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(variable);
  });

  // Regression: the listening line was printed before the signal handlers
  // were installed, so a quick SIGTERM killed the process with the default action.
  it.each([
    [
      "a policy that does not check",
      'INVALID_POLICIES: The manifest\'s policies are invalid: policy "own" (Note.allowRead)',
      {
        policies: [{ name: "own", entity: "Note", allowRead: "auth.emailVerified == true" }],
      },
    ],
    [
      "a function file that fails to load",
      "FUNCTION_LOAD_FAILED: functions/broken.mjs",
      { brokenFunction: true },
    ],
    // Regression: the line had no code although the jobs guide promises INVALID_CRON.
    [
      "a function with an invalid cron schedule",
      'INVALID_CRON: Cron entry fn.nightly has an invalid schedule "61 * * * *"',
      { cronFunction: true },
    ],
    [
      "a User entity without a unique email",
      "User.email",
      { user: [{ name: "email", type: "string" }] },
    ],
    [
      "a User entity with a required field sign-in cannot fill",
      "User.nickname",
      {
        user: [
          { name: "email", type: "string", unique: true },
          { name: "nickname", type: "string" },
        ],
      },
    ],
  ])("refuses to boot on %s with a line naming it", async (_label, named, variant) => {
    using dir = tempDir();
    const manifest = testManifest("bad", {
      version: "0",
      entities: [
        entity("Note", { text: "string" }),
        ...("user" in variant ? [{ name: "User", fields: variant.user }] : []),
      ],
      policies: "policies" in variant ? variant.policies : [],
    });
    writeTestApp(dir.path, manifest);
    if ("brokenFunction" in variant) {
      writeFileSync(join(dir.path, "functions", "broken.mjs"), "export default {\n");
    }
    if ("cronFunction" in variant) {
      writeFileSync(
        join(dir.path, "functions", "nightly.mjs"),
        'export default { type: "mutation", cron: "61 * * * *", handler: () => null };\n',
      );
    }
    const { code, stderr } = await start({
      SVC_MANIFEST: join(dir.path, "svc.json"),
      SVC_DB_PATH: join(dir.path, "data.db"),
    }).exited;
    expect(code).toBe(1);
    const lines = stderr.trim().split("\n");
    expect(lines[0]).toContain(named);
    // A bad rule is also shown under it, with a caret at the problem.
    expect(lines.slice(1)).toEqual(
      named.startsWith("INVALID_POLICIES")
        ? [
            expect.stringContaining(
              'svc:   policy "own" (Note.allowRead): unknown auth.emailVerified',
            ),
            "svc:       auth.emailVerified == true",
            "svc:       ^",
          ]
        : [],
    );
  });

  it("refuses to boot when the manifest change would drop stored data, saying what", async () => {
    using dir = tempDir();
    const manifestPath = join(dir.path, "svc.json");
    const write = (fields: { name: string; type: string }[]): void =>
      writeFileSync(
        manifestPath,
        JSON.stringify({
          manifest_version: 1,
          name: "migrating",
          version: "0",
          auth: { trustedOrigins: ["http://localhost:5173"] },
          entities: [{ name: "Note", fields }],
        }),
      );
    const env = { SVC_MANIFEST: manifestPath, SVC_DB_PATH: join(dir.path, "data.db") };
    write([
      { name: "text", type: "string" },
      { name: "stars", type: "int" },
    ]);
    const first = start(env);
    await first.ready;
    first.child.kill("SIGTERM");
    await first.exited;
    write([{ name: "text", type: "string" }]);
    const { code, stderr } = await start(env).exited;
    expect(code).toBe(1);
    expect(stderr.trim().split("\n")).toEqual([
      expect.stringContaining("Note.stars would be dropped"),
    ]);
  });

  // Regression: half an OAuth pair stopped the boot; the spec disables the provider.
  it("boots without an OAuth provider that has no secret, warning in one line naming it", async () => {
    using dir = tempDir();
    const server = start({
      SVC_DB_PATH: `${dir.path}/data.db`,
      SVC_SESSION_DB: `${dir.path}/sessions.db`,
      SVC_PUBLIC_URL: "https://a.example",
      SVC_OAUTH_GITHUB_CLIENT_ID: "Iv1.abc",
    });
    const url = await server.ready;
    expect(await (await fetch(`${url}/api/auth/providers`)).json()).toEqual({ providers: [] });
    server.child.kill("SIGTERM");
    // A warning is a line of the log (JSON outside dev mode) at level warn.
    const { stdout } = await server.exited;
    const warnings = stdout
      .split("\n")
      .filter((line) => line.includes("SVC_OAUTH_GITHUB"))
      .map((line) => JSON.parse(line) as { level: string; msg: string });
    expect(warnings).toEqual([
      expect.objectContaining({
        level: "warn",
        msg: expect.stringMatching(
          /^svc: warning: SVC_OAUTH_GITHUB_CLIENT_SECRET is unset while SVC_OAUTH_GITHUB_CLIENT_ID is set/,
        ),
      }),
    ]);
  });

  it("exits promptly on SIGTERM", async () => {
    using dir = tempDir();
    const server = start({ SVC_DB_PATH: `${dir.path}/data.db` });
    await server.ready;
    const stoppedAt = Date.now();
    server.child.kill("SIGTERM");
    const { code, signal } = await server.exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(Date.now() - stoppedAt).toBeLessThan(5000);
  });
});

/** Reads an SSE response to its end: "ended" on a clean end of stream, "reset" when it was cut. */
async function readToEnd(response: Response): Promise<{ end: "ended" | "reset"; text: string }> {
  const reader = response.body?.getReader();
  if (reader === undefined) return { end: "ended", text: "" };
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { end: "ended", text };
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    return { end: "reset", text };
  }
}

describe.each(testDatabases())("SIGTERM on $name", (database) => {
  const app = appPerTest(database);

  // Regression: SIGTERM exited without closing anything (after the 1 s
  // fallback timer), so WebSocket clients saw 1006 and SSE streams were reset.
  it("closes WebSockets with 1001 and ends SSE streams cleanly before it exits", async () => {
    const server = start(databaseEnv(app.target));
    const url = await server.ready;
    const socket = await connectWs({ url }, { token: ADMIN_TOKEN });
    socket.send({ type: "subscribe", id: "lists", entity: "List" });
    expect((await socket.next()).type).toBe("snapshot");
    const events = await fetch(`${url}/events?entity=List`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(events.status).toBe(200);
    const stream = readToEnd(events);
    // The stream is live once its snapshot arrived; a read of the first chunk is enough.
    await new Promise((resolveSoon) => setTimeout(resolveSoon, 200));

    const stoppedAt = Date.now();
    server.child.kill("SIGTERM");
    const [closed, ended, exit] = await Promise.all([socket.closed, stream, server.exited]);
    expect(closed.code).toBe(1001);
    expect(ended.end).toBe("ended");
    expect(ended.text).toContain('"type":"snapshot"');
    expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
    // No drain: the process is gone well before the old 1 s fallback timer.
    expect(Date.now() - stoppedAt).toBeLessThan(1000);
    expect(exit.stderr).not.toContain("Error");
  });
});

/** The store's group-commit histogram from `/metrics`: commits and the transactions they held. */
async function commitHistogram(url: string): Promise<{ count: number; transactions: number }> {
  const text = await (await fetch(`${url}/metrics`, { headers: { accept: "text/plain" } })).text();
  const value = (name: string): number => {
    const match = new RegExp(`^${name} (\\S+)$`, "m").exec(text);
    return match?.[1] === undefined ? Number.NaN : Number(match[1]);
  };
  return {
    count: value("svc_store_commit_transactions_count"),
    transactions: value("svc_store_commit_transactions_sum"),
  };
}

describe.each(testDatabases())("crash safety on $name", (database) => {
  const app = appPerTest(database);

  // On SQLite, concurrent writes share commits (group commit): the kill
  // lands while groups are being run and committed, and no write may be
  // acknowledged before the commit that holds it.
  it("keeps every acknowledged write after kill -9 mid-stream", async () => {
    const env = databaseEnv(app.target);
    const first = start(env);
    const url = await first.ready;

    const acknowledged: string[] = [];
    let commits: { count: number; transactions: number } | undefined;
    let killed = false;
    const writer = async (): Promise<void> => {
      for (let i = 0; i < 2000 && !killed; i += 1) {
        try {
          const response = await fetch(`${url}/api/entities/List`, {
            method: "POST",
            headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
            body: JSON.stringify({ title: `crash-${i}` }),
          });
          if (response.status !== 201) continue;
          acknowledged.push(((await response.json()) as { id: string }).id);
          if (acknowledged.length >= 150 && !killed) {
            killed = true;
            commits = await commitHistogram(url);
            first.child.kill("SIGKILL");
          }
        } catch {
          return; // the connection died with the process
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, writer));
    const exit = await first.exited;
    expect(exit.signal).toBe("SIGKILL");
    expect(acknowledged.length).toBeGreaterThanOrEqual(150);

    const second = start(env);
    const restartedURL = await second.ready;
    const stored = new Set<string>();
    let cursor: string | null = null;
    do {
      const response: Response = await fetch(
        `${restartedURL}/api/entities/List?limit=1000${cursor ? `&cursor=${cursor}` : ""}`,
        { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
      );
      expect(response.status).toBe(200);
      for (const row of (await response.json()) as { id: string }[]) stored.add(row.id);
      cursor = response.headers.get("x-next-cursor");
    } while (cursor !== null);
    const lost = acknowledged.filter((id) => !stored.has(id));
    expect(lost).toEqual([]);
    matchTarget(app.target, {
      // Sixteen writers at once: some commits held more than one write.
      sqlite: () =>
        expect(commits?.transactions).toBeGreaterThan(commits?.count ?? Number.POSITIVE_INFINITY),
      postgres: () => expect(commits).toEqual({ count: 0, transactions: 0 }),
    });
  });
});
