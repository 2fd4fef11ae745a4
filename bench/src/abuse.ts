import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { WebSocket } from "ws";
import { getFreePort, killAllChildren, startServer } from "./processes.js";
import { createAdminToken, serverMainPath } from "./svc.js";

// `pnpm -F @svc/bench run bench:abuse`: issue 21's subscription flood, run
// against the built server (the todo example on SQLite) while /health
// latency and the server's resident memory are sampled. A user writes the
// largest rows it may, opens two sockets and sends 256 entity subscriptions
// on each, then 256 live queries on a third; the report says what reached
// the sockets, what was refused, and how /health and RSS fared.

const TODO_MANIFEST = fileURLToPath(new URL("../../examples/todo/svc.json", import.meta.url));
const SUBSCRIPTIONS = 256;
/** Rows of the largest allowed title: 15 x 64 KiB stays under the 1 MiB snapshot bound. */
const ROWS = 15;
const SAMPLE_MS = 50;

function rssMiB(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kib / 1024;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

interface Flood {
  bytes: number;
  frames: number;
  errors: Map<string, number>;
  closes: string[];
}

/** Opens a socket as `token`, sends `frames`, and counts what comes back until `done`. */
async function flood(url: string, token: string, frames: readonly unknown[], done: Promise<void>) {
  const result: Flood = { bytes: 0, frames: 0, errors: new Map(), closes: [] };
  const socket = new WebSocket(`${url.replace(/^http/, "ws")}/ws`, ["svc.v1", `bearer.${token}`]);
  socket.on("message", (data: Buffer) => {
    result.bytes += data.length;
    result.frames += 1;
    const text = data.toString();
    if (text.startsWith('{"type":"error"')) {
      const code = (JSON.parse(text) as { error: { code: string } }).error.code;
      result.errors.set(code, (result.errors.get(code) ?? 0) + 1);
    }
  });
  socket.on("close", (code, reason) => result.closes.push(`${code} ${reason.toString()}`));
  socket.on("error", () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  for (const frame of frames) socket.send(JSON.stringify(frame));
  await done;
  socket.terminate();
  return result;
}

async function post(url: string, path: string, token: string | undefined, body: unknown) {
  const response = await fetch(`${url}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token !== undefined && { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "svc-abuse-"));
  const port = await getFreePort();
  const server = await startServer({
    name: "svc server",
    port,
    nodeArgs: [serverMainPath()],
    cwd: dir,
    env: {
      SVC_PORT: String(port),
      SVC_HOST: "127.0.0.1",
      SVC_MANIFEST: TODO_MANIFEST,
      SVC_DB_PATH: join(dir, "abuse.db"),
      SVC_ADMIN_TOKEN: createAdminToken(),
      SVC_DEV_MODE: "false",
      SVC_RATE_LIMIT: "off",
    },
    readyPath: "/health",
    readyTimeoutMs: 30_000,
  });
  try {
    const url = server.baseURL;
    // A signed-up user (guests may not run live queries).
    const user = await post(url, "/api/auth/password/register", undefined, {
      email: "mallory@example.com",
      password: "a long enough password",
    });
    const token = String(user.body.token);
    const huge = await post(url, "/api/entities/Todo", token, {
      title: "x".repeat(1_000_000),
      done: false,
      priority: "low",
    });
    console.log(
      `a 1,000,000-character title: ${huge.status} ${JSON.stringify(huge.body.error ?? huge.body)}`,
    );
    // The largest title the default field bound admits, a few times over.
    let stored = 0;
    for (let size = 64 * 1024; stored < ROWS && size > 1024; ) {
      const answer = await post(url, "/api/entities/Todo", token, {
        title: "y".repeat(size),
        done: false,
        priority: "low",
      });
      if (answer.status === 201) stored += 1;
      else size -= 1024;
    }
    console.log(`stored ${stored} rows of the largest title allowed`);

    const latencies: number[] = [];
    const rss: number[] = [rssMiB(server.pid)];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const started = performance.now();
        await fetch(`${url}/health`).then((response) => response.arrayBuffer());
        latencies.push(performance.now() - started);
        rss.push(rssMiB(server.pid));
        await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
      }
    })();
    const duration = new Promise<void>((resolve) => setTimeout(resolve, 10_000));
    const entityFrames = Array.from({ length: SUBSCRIPTIONS }, (_, index) => ({
      type: "subscribe",
      id: `s${index}`,
      entity: "Todo",
      limit: 1000,
    }));
    const queryFrames = Array.from({ length: SUBSCRIPTIONS }, (_, index) => ({
      type: "subscribe",
      id: `q${index}`,
      query: "listTodos",
      args: {},
    }));
    const floods = await Promise.all([
      flood(url, token, entityFrames, duration),
      flood(url, token, entityFrames, duration),
      flood(url, token, queryFrames, duration),
    ]);
    sampling = false;
    await sampler;
    const pushed = floods.reduce((sum, each) => sum + each.bytes, 0);
    console.log(
      `pushed ${(pushed / 1024 / 1024).toFixed(1)} MiB in ${floods.reduce((sum, each) => sum + each.frames, 0)} frames over 10 s`,
    );
    floods.forEach((each, index) => {
      console.log(
        `  socket ${index + 1}: ${(each.bytes / 1024 / 1024).toFixed(1)} MiB, errors ${JSON.stringify(Object.fromEntries(each.errors))}, closes ${JSON.stringify(each.closes)}`,
      );
    });
    console.log(
      `/health over ${latencies.length} samples: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms`,
    );
    console.log(
      `server RSS: ${rss[0]?.toFixed(0)} MiB before, ${Math.max(...rss).toFixed(0)} MiB at most, ${rss.at(-1)?.toFixed(0)} MiB at the end`,
    );
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  killAllChildren();
  process.exitCode = 1;
});
