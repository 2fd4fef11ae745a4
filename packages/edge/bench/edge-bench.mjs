// Edge benchmark (not run in CI): a function query and a one-row mutation in
// the svc Worker under workerd (miniflare, local D1) against a bare Worker
// that answers the same JSON — for the mutation after the same D1 insert
// written by hand. Sequential requests, rounds alternated, one run.
//
//   pnpm -F @svc/edge build && node packages/edge/bench/edge-bench.mjs [requests]
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { buildEdgeApp } from "../dist/index.js";

const REQUESTS = Number(process.argv[2] ?? 2000);
const ROUNDS = 4;
const ADMIN = "bench-admin-token-0123456789abcdef0123456789abcdef";

const BARE = `
export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    if (pathname === "/api/fn/getItem") {
      const args = await request.json();
      return Response.json({ id: args.id, title: "bench item" });
    }
    if (pathname === "/api/fn/getItemRead") {
      const args = await request.json();
      const row = await env.DB.prepare('select "id", "title" from "Item" where "id" = ?').bind(args.id).first();
      return Response.json(row);
    }
    if (pathname === "/api/fn/addItem") {
      const args = await request.json();
      const id = [...crypto.getRandomValues(new Uint8Array(20))].map((b) => b.toString(16).padStart(2, "0")).join("");
      await env.DB.prepare('insert into "Item" ("id", "title", "ownerId") values (?, ?, ?)').bind(id, args.title, "bench-user").run();
      return Response.json({ id });
    }
    return new Response("not found", { status: 404 });
  },
};`;

function splitStatements(text) {
  return text
    .split(/;\s*\n/)
    .map((s) =>
      s
        .replace(/^(\s*--[^\n]*\n)+/, "")
        .trim()
        .replace(/;$/, ""),
    )
    .filter((s) => s !== "");
}

const outDir = await mkdtemp(join(tmpdir(), "svc-edge-bench-"));
const build = await buildEdgeApp({
  manifestPath: fileURLToPath(new URL("./app/svc.json", import.meta.url)),
  outDir,
  docs: false,
});
const shared = {
  modules: true,
  compatibilityDate: "2025-09-15",
  compatibilityFlags: ["nodejs_compat", "enable_nodejs_global_timers"],
  d1Databases: { DB: "bench" },
  d1Persist: false,
};
const mf = new Miniflare({
  workers: [
    {
      ...shared,
      name: "svc",
      scriptPath: build.workerPath,
      modulesRoot: outDir,
      bindings: { SVC_ADMIN_TOKEN: ADMIN },
    },
    { ...shared, name: "bare", script: BARE },
  ],
});
const d1 = await mf.getD1Database("DB", "svc");
await d1.batch(
  splitStatements(await readFile(build.migrationPath, "utf8")).map((s) => d1.prepare(s)),
);
const svc = await mf.getWorker("svc");
const bare = await mf.getWorker("bare");

async function call(worker, path, body, token) {
  const response = await worker.fetch(`http://bench${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token && { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${text}`);
  return JSON.parse(text);
}

const { token } = await call(svc, "/api/auth/guest", {});
// A guest may not call user functions: register a user (one argon2 hash).
const user = await call(svc, "/api/auth/password/register", {
  email: "bench@example.com",
  password: "bench password 123",
});
const { id } = await call(svc, "/api/fn/addItem", { title: "bench item" }, user.token);
void token;

async function time(worker, path, body, auth) {
  const samples = [];
  for (let i = 0; i < REQUESTS / ROUNDS; i++) {
    const start = performance.now();
    await call(worker, path, typeof body === "function" ? body(i) : body, auth);
    samples.push(performance.now() - start);
  }
  return samples;
}

const cases = [
  ["query getItem", "/api/fn/getItem", { id }],
  ["query getItem, bare reads D1", "/api/fn/getItem", { id }, "/api/fn/getItemRead"],
  ["mutation addItem (one insert)", "/api/fn/addItem", (i) => ({ title: `item ${i}` })],
];
// Warm-up: both isolates compiled, caches filled.
for (const [, path, body, barePath] of cases) {
  await time(svc, path, body, user.token);
  await time(bare, barePath ?? path, body);
}
console.log(
  `edge bench: ${REQUESTS} sequential requests per side and case, ${ROUNDS} alternating rounds, miniflare ${(await import("miniflare/package.json", { with: { type: "json" } })).default.version}`,
);
for (const [name, path, body, barePath] of cases) {
  const svcSamples = [];
  const bareSamples = [];
  for (let round = 0; round < ROUNDS; round++) {
    svcSamples.push(...(await time(svc, path, body, user.token)));
    bareSamples.push(...(await time(bare, barePath ?? path, body)));
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log(
    `${name.padEnd(32)} svc median ${median(svcSamples).toFixed(3)} ms, mean ${mean(svcSamples).toFixed(3)} ms | bare median ${median(bareSamples).toFixed(3)} ms, mean ${mean(bareSamples).toFixed(3)} ms | ratio (median) ${(median(svcSamples) / median(bareSamples)).toFixed(2)}x, (mean) ${(mean(svcSamples) / mean(bareSamples)).toFixed(2)}x`,
  );
}
await mf.dispose();
await rm(outDir, { recursive: true, force: true });
