import type { ChangeFrame, ServerFrame } from "@svc/sync";
import { postgresTestDatabase } from "@svc/tooling/databases";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appServerPerTest, startAppServer } from "./app-server.js";
import { writeAssignedTasksApp } from "./assigned-tasks-app.js";
import {
  type AuthTestServer,
  insertRow,
  readJSON,
  registerPassword,
  request,
  type SignInBody,
} from "./auth-fixtures.js";
import { connectWs, type WsClient } from "./ws-client.js";

// Two composed servers on one Postgres database (one DATABASE_URL): a write
// through either reaches the other's WebSocket subscribers through the
// change log's LISTEN/NOTIFY feed, once and in order; a client cut off with
// its server resumes on the other by pull with no gap and no duplicate.

const postgres = postgresTestDatabase();

interface Pulled {
  changes: { cursor: string; entity: string; op: string; rowId: string }[];
  cursor: string;
  has_more: boolean;
}

function writeApp(dir: string): string {
  return writeAssignedTasksApp(dir, "sync-two-servers");
}

/** Polls `condition` every 10 ms until it holds; fails after `timeoutMs`. */
async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Collects every frame `client` receives, in order, for as long as it is open. */
function collect(client: WsClient): ServerFrame[] {
  const frames: ServerFrame[] = [];
  void (async () => {
    for (;;) frames.push(await client.next());
  })();
  return frames;
}

const changesOf = (frames: readonly ServerFrame[]): ChangeFrame[] =>
  frames.filter((frame): frame is ChangeFrame => frame.type === "change");

describe.skipIf(postgres === undefined)("sync across two servers on Postgres", () => {
  const env = { SVC_RATE_LIMIT: "off" };
  const app = appServerPerTest(postgres as NonNullable<typeof postgres>, { writeApp, env });
  let first: AuthTestServer;
  let second: AuthTestServer;
  let secondClosed: boolean;
  let alice: SignInBody;
  const clients: WsClient[] = [];

  beforeEach(async () => {
    first = app.server;
    second = await startAppServer(app, env);
    secondClosed = false;
    // Sessions live in the shared database: the token works on both servers.
    alice = await registerPassword(first, "alice@example.com");
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    if (!secondClosed) await second[Symbol.asyncDispose]();
  });

  const subscribeOnSecond = async (): Promise<{ frames: ServerFrame[]; cursor: number }> => {
    const client = await connectWs(second, { token: alice.token });
    clients.push(client);
    const frames = collect(client);
    client.send({ type: "subscribe", id: "mine", entity: "Task" });
    await waitFor(() => frames.length > 0, "the snapshot");
    const [snapshot] = frames.splice(0, 1);
    expect(snapshot?.type, JSON.stringify(snapshot)).toBe("snapshot");
    return { frames, cursor: Number((snapshot as { cursor: string }).cursor) };
  };

  const addTask = (title: string): Promise<string> =>
    insertRow(first, "Task", { title, assigneeId: alice.user_id }, alice.token);

  const pullFrom = async (server: AuthTestServer, since: number): Promise<Pulled["changes"]> => {
    const changes: Pulled["changes"] = [];
    let cursor = String(since);
    for (;;) {
      const page = await readJSON<Pulled>(
        request(server, "GET", `/api/sync/pull?since=${cursor}`, { token: alice.token }),
      );
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      changes.push(...page.body.changes);
      cursor = page.body.cursor;
      if (!page.body.has_more) return changes;
    }
  };

  it("delivers a write through the first server to a subscriber of the second, once", async () => {
    const { frames, cursor } = await subscribeOnSecond();
    const ids = [await addTask("t1"), await addTask("t2"), await addTask("t3")];
    await waitFor(() => changesOf(frames).length >= 3, "three change frames on the second server");
    // One more write: a duplicate of the first three would have come before it.
    ids.push(await addTask("t4"));
    await waitFor(() => changesOf(frames).length >= 4, "the fourth change frame");
    const changes = changesOf(frames);
    expect(changes.map((change) => [change.op, change.rowId])).toEqual(
      ids.map((id) => ["insert", id]),
    );
    const cursors = changes.map((change) => Number(change.cursor));
    expect(cursors[0]).toBeGreaterThan(cursor);
    expect([...cursors].sort((x, y) => x - y)).toEqual(cursors);
    expect(frames).toHaveLength(4);
    expect(first.internalErrors).toEqual([]);
    expect(second.internalErrors).toEqual([]);
  });

  it("a client cut off with the second server resumes by pull on the first: no gap, no duplicate", async () => {
    const { frames, cursor } = await subscribeOnSecond();
    const written: string[] = [];
    const writing = (async () => {
      for (let i = 0; i < 20; i += 1) written.push(await addTask(`t${i}`));
    })();
    await waitFor(() => changesOf(frames).length >= 5, "the first changes on the second server");
    // Killed mid-stream: the writes through the first server go on.
    await second.close({ drainSeconds: 0 });
    secondClosed = true;
    await writing;
    // And after it is gone: these can only come from the pull.
    for (let i = 20; i < 23; i += 1) written.push(await addTask(`t${i}`));
    const live = changesOf(frames);
    expect(live.length).toBeGreaterThanOrEqual(5);
    const last = Number(live.at(-1)?.cursor ?? cursor);
    const pulled = (await pullFrom(first, last)).filter((change) => change.entity === "Task");
    const seen = [...live.map((change) => change.rowId), ...pulled.map((change) => change.rowId)];
    expect(seen).toEqual(written);
    expect(pulled.length).toBeGreaterThanOrEqual(3);
    const cursors = [...live, ...pulled].map((change) => Number(change.cursor));
    expect([...cursors].sort((x, y) => x - y)).toEqual(cursors);
    expect(new Set(cursors).size).toBe(cursors.length);
  });
});
