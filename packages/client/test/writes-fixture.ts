import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listEntity, ownTodosPolicy, userEntity } from "@svc/tooling/manifests";
import { type ClientOptions, createClient, type SvcClient, type Timers } from "../src/index.js";

/** Switches the test app's function files read (they load into this process). */
export interface WriteSwitches {
  /** `addTodo` fails with 503 this many more times (after its insert, so nothing is kept). */
  failAddTodo?: number;
}
const switches = globalThis as unknown as { __svcClientWrites: WriteSwitches };
switches.__svcClientWrites = {};

/** The switches of the test app's functions; reset them in `beforeEach`. */
export function writeSwitches(): WriteSwitches {
  switches.__svcClientWrites = {};
  return switches.__svcClientWrites;
}

/**
 * The app the write tests run against, in a temp dir: `List` (any
 * signed-in caller), `Todo` (owned, with an optional `List` reference),
 * and four functions: `addTodo` (inserts with the `id` it is given, fails
 * with 503 while `failAddTodo` says so), `refuseTodo` (inserts, then
 * refuses with 422 `REFUSED`, so nothing is kept), `renameTodo` and
 * `countTodos` (a query). `dispose` removes the dir.
 */
export function writeWritesApp(): { manifest: string; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), "svc-client-writes-"));
  const manifest = {
    manifest_version: 1,
    name: "writes-test",
    version: "1",
    entities: [
      userEntity(),
      listEntity(),
      {
        name: "Todo",
        fields: [
          { name: "title", type: "string" },
          { name: "done", type: "bool" },
          { name: "ownerId", type: "string", owner: true },
          { name: "listId", type: "id", target: "List", optional: true },
        ],
      },
    ],
    policies: [
      {
        name: "signed-in lists",
        entity: "List",
        allowRead: "auth.userId != null",
        allowInsert: "auth.userId != null",
        allowUpdate: "auth.userId != null",
        allowDelete: "auth.userId != null",
      },
      ownTodosPolicy(),
    ],
  };
  writeFileSync(join(dir, "svc.json"), JSON.stringify(manifest));
  const functions = join(dir, "functions");
  mkdirSync(functions);
  const write = (name: string, source: string): void =>
    writeFileSync(join(functions, `${name}.mjs`), source);
  write(
    "addTodo",
    `export default {
  type: "mutation",
  handler: async (ctx, args) => {
    const todo = await ctx.db.insert("Todo", {
      ...(args.id !== undefined && { id: args.id }),
      title: args.title,
      done: false,
      ...(args.listId !== undefined && { listId: args.listId }),
    });
    const test = globalThis.__svcClientWrites;
    if ((test.failAddTodo ?? 0) > 0) {
      test.failAddTodo -= 1;
      ctx.error("TRY_LATER", "Not now.", 503);
    }
    return todo;
  },
};
`,
  );
  write(
    "refuseTodo",
    `export default {
  type: "mutation",
  handler: async (ctx, args) => {
    await ctx.db.insert("Todo", { ...(args.id !== undefined && { id: args.id }), title: args.title, done: false });
    ctx.error("REFUSED", "This todo is refused.", 422);
  },
};
`,
  );
  write(
    "renameTodo",
    `export default {
  type: "mutation",
  handler: async (ctx, args) => ctx.db.update("Todo", args.id, { title: args.title }),
};
`,
  );
  write(
    "countTodos",
    `export default {
  type: "query",
  handler: async (ctx) => (await ctx.db.query("Todo", { limit: 1000 })).rows.length,
};
`,
  );
  return {
    manifest: join(dir, "svc.json"),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A client of `url` with `options`, signed in as a new magic-code user. */
export async function signedInWith(
  url: string,
  email: string,
  options: Omit<ClientOptions, "url"> = {},
): Promise<{ client: SvcClient; userId: string }> {
  const client = createClient({ url, ...options });
  const sent = await client.auth.sendMagicCode(email);
  const result = await client.auth.verifyMagicCode(email, sent.dev_code ?? "");
  if (!("token" in result)) throw new Error("unexpected second factor");
  return { client, userId: result.user_id };
}

/** Timers that fire on the next microtask, recording each delay asked for. */
export function immediateTimers(): { timers: Timers; delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    timers: {
      setTimeout(callback, ms) {
        delays.push(ms);
        const handle = { cancelled: false };
        queueMicrotask(() => {
          if (!handle.cancelled) callback();
        });
        return handle;
      },
      clearTimeout(handle) {
        (handle as { cancelled: boolean }).cancelled = true;
      },
    },
  };
}

/** One request a `NetworkSwitch` saw. */
export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly key: string | null;
  readonly body: unknown;
  /**
   * What became of it: sent and answered, sent with the answer lost or
   * replaced by a gateway's 502, or never sent.
   */
  outcome: "answered" | "answer-lost" | "bad-gateway" | "offline" | "pending";
  /** The answer's `Idempotent-Replayed` header. */
  replayed: boolean;
}

/**
 * The platform's fetch with a switch in front of the write routes
 * (`/api/fn/*` but `countTodos`, `/api/entities/*`): `offline` refuses
 * them without sending; `loseAnswers(n)` forwards the next `n` and throws
 * before handing back the answer (the server applied the write, the
 * connection dropped); `hold()` keeps the next one until released.
 * Every write request is recorded in `seen`.
 */
export interface NetworkSwitch {
  readonly fetch: (input: string, init: RequestInit) => Promise<Response>;
  readonly seen: SeenRequest[];
  offline: boolean;
  loseAnswers(count: number): void;
  /**
   * The next `count` writes reach the server, but their answers are
   * replaced by a load balancer's `502 Bad Gateway` page (no svc envelope),
   * as when the server died after applying the write and before answering.
   */
  gatewayErrors(count: number): void;
  /** Holds the next write until `release()`; `sent` resolves when it reaches the switch. */
  hold(): { readonly sent: Promise<void>; release(): void };
}

function isWrite(path: string, method: string): boolean {
  if (path.startsWith("/api/entities/")) return method !== "GET";
  return path.startsWith("/api/fn/") && path !== "/api/fn/countTodos";
}

export function networkSwitch(): NetworkSwitch {
  const seen: SeenRequest[] = [];
  let lose = 0;
  let gateway = 0;
  const holds: { reached(): void; released: Promise<void> }[] = [];
  const state: NetworkSwitch = {
    seen,
    offline: false,
    loseAnswers(count) {
      lose = count;
    },
    gatewayErrors(count) {
      gateway = count;
    },
    hold() {
      let reached = (): void => undefined;
      let release = (): void => undefined;
      const sent = new Promise<void>((resolve) => {
        reached = resolve;
      });
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      holds.push({ reached, released });
      return { sent, release };
    },
    async fetch(input, init) {
      const url = new URL(input);
      const method = init.method ?? "GET";
      if (!isWrite(url.pathname, method)) return globalThis.fetch(input, init);
      const headers = new Headers(init.headers);
      const request: SeenRequest = {
        method,
        path: url.pathname,
        key: headers.get("idempotency-key"),
        body: typeof init.body === "string" ? JSON.parse(init.body) : undefined,
        outcome: "pending",
        replayed: false,
      };
      seen.push(request);
      const held = holds.shift();
      if (held !== undefined) {
        held.reached();
        await held.released;
      }
      if (state.offline) {
        request.outcome = "offline";
        throw new TypeError("fetch failed (offline)");
      }
      const response = await globalThis.fetch(input, init);
      request.replayed = response.headers.get("idempotent-replayed") === "true";
      if (lose > 0) {
        lose -= 1;
        await response.arrayBuffer();
        request.outcome = "answer-lost";
        throw new TypeError("fetch failed (connection reset)");
      }
      if (gateway > 0) {
        gateway -= 1;
        await response.arrayBuffer();
        request.outcome = "bad-gateway";
        return new Response("<html><body><h1>502 Bad Gateway</h1></body></html>", {
          status: 502,
          headers: { "content-type": "text/html" },
        });
      }
      request.outcome = "answered";
      return response;
    },
  };
  return state;
}
