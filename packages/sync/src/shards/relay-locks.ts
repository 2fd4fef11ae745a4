import { createHash } from "node:crypto";
import type { Client } from "pg";

// The advisory locks and lock questions of the shard relay (relay-pg.ts).
// Locks in the two-int4 form (objsubid 2 in pg_locks), which never meet
// the single-bigint locks svc takes elsewhere (migrations).

/** A positive 31-bit number from a string: advisory lock keys (int4, and oid in pg_locks). */
function key31(text: string): number {
  return createHash("sha256").update(text).digest().readUInt32BE(0) & 0x7fffffff;
}

/** The lock class of node ids: one namespace per database (channels are per database too). */
export const NODE_CLASS = key31("svc.shard.node");

/** The LISTEN / NOTIFY channel of a server. */
export const channelOf = (node: number): string => `svc_shard_${node}`;

/** What the relay learns about its session once connected. */
export interface SessionFacts {
  /** The backend's process id (to end it after a loss, see `terminateStale`). */
  readonly pid: number;
  /** The database's oid, as text (pg_locks lists every database's locks). */
  readonly database: string;
  /** The lock class of rooms: one per schema, so schemas of one database never share a room. */
  readonly roomClass: number;
}

export async function describeSession(client: Client): Promise<SessionFacts> {
  const about = await client.query<{ schema: string; pid: number; database: string }>(
    `select current_schema() as schema, pg_backend_pid() as pid,
       (select oid from pg_database where datname = current_database())::text as database`,
  );
  const row = about.rows[0];
  if (row === undefined) throw new Error("no session details");
  return {
    pid: row.pid,
    database: row.database,
    roomClass: key31(`svc.shard.room\u0000${row.schema}`),
  };
}

/**
 * Ends this server's previous session if Postgres still holds it (it has
 * not noticed a network loss yet): it would keep its room locks. Only that
 * session: the one holding the old node id with the old process id.
 */
export async function terminateStale(
  client: Client,
  database: string,
  previous: { readonly node: number; readonly pid: number },
): Promise<void> {
  await client.query(
    `select pg_terminate_backend(pid) from pg_locks
      where locktype = 'advisory' and database = $1::oid and classid = $2::oid
        and objid = $3::oid and objsubid = 2 and pid = $4 and granted`,
    [database, NODE_CLASS, previous.node, previous.pid],
  );
}

/** Takes a free random node id: its lock is the server's liveness for as long as the session lives. */
export async function takeNodeId(client: Client): Promise<number> {
  for (let tries = 0; tries < 20; tries++) {
    const candidate = 1 + Math.floor(Math.random() * 0x7ffffffe);
    const taken = await client.query<{ ok: boolean }>(CLAIM_SQL, [NODE_CLASS, candidate]);
    if (taken.rows[0]?.ok === true) return candidate;
  }
  throw new Error("no free node id");
}

/** The lock of a room: the schema's class and a key from the room's id (kind and key). */
export function roomLock(facts: SessionFacts, room: string): [number, number] {
  return [facts.roomClass, key31(room)];
}

/**
 * Takes a lock if free (or held by this session already: session locks
 * stack, so two rooms whose keys collide share a home, and each release
 * undoes one claim).
 */
export const CLAIM_SQL = "select pg_try_advisory_lock($1::int4, $2::int4) as ok";
export const RELEASE_SQL = "select pg_advisory_unlock($1::int4, $2::int4)";

/** The node id of the session holding a room's lock ($1 database, $2-$3 the lock, $4 NODE_CLASS). */
export const HOLDER_SQL = `select n.objid::int8::text as node
   from pg_locks r join pg_locks n on n.pid = r.pid
  where r.locktype = 'advisory' and r.database = $1::oid and r.classid = $2::oid
    and r.objid = $3::oid and r.objsubid = 2 and r.granted
    and n.locktype = 'advisory' and n.database = $1::oid and n.classid = $4::oid
    and n.objsubid = 2 and n.granted`;

/** The node ids of the live servers ($1 database, $2 NODE_CLASS). */
export const LIVE_NODES_SQL = `select objid::int8::text as node from pg_locks
  where locktype = 'advisory' and database = $1::oid and classid = $2::oid
    and objsubid = 2 and granted`;
