import { randomBytes } from "node:crypto";
import { statfs } from "node:fs/promises";
import { dirname } from "node:path";
import { type Kysely, sql } from "kysely";
import type { EntityTables, StoreDialect } from "./database.js";
import { StoreError } from "./errors.js";

/** The least room a database must have left to count as writable: 1 MiB. */
export const MIN_STORAGE_ROOM_BYTES = 1024 * 1024;

/** What the Postgres probe writes (random, so compression cannot shrink it). */
const POSTGRES_PROBE_BYTES = 64 * 1024;

const PROBE_TABLE = "_svc_storage_probe";

async function pragmaNumber(db: Kysely<EntityTables>, schema: string, name: string) {
  // `schema` comes from `pragma database_list`; quoted as an identifier.
  const quoted = `"${schema.replaceAll('"', '""')}"`;
  const { rows } = await sql.raw<Record<string, unknown>>(`pragma ${quoted}.${name}`).execute(db);
  return Number(Object.values(rows[0] ?? {})[0] ?? 0);
}

/**
 * SQLite: the room left in each database file of the writer's connection
 * (attached ones included), without writing: the pages `max_page_count`
 * still allows, capped by the free space of the file's file system, plus
 * the pages on the freelist (reused before the file grows).
 */
async function probeSqlite(db: Kysely<EntityTables>): Promise<void> {
  const { rows } = await sql<{ name: string; file: string }>`pragma database_list`.execute(db);
  for (const { name, file } of rows) {
    if (name === "temp") continue;
    const pageSize = await pragmaNumber(db, name, "page_size");
    const pages = await pragmaNumber(db, name, "page_count");
    const maxPages = await pragmaNumber(db, name, "max_page_count");
    const freePages = await pragmaNumber(db, name, "freelist_count");
    let growth = Math.max(0, maxPages - pages) * pageSize;
    if (file !== "") {
      const disk = await statfs(dirname(file));
      growth = Math.min(growth, disk.bavail * disk.bsize);
    }
    const room = growth + freePages * pageSize;
    if (room < MIN_STORAGE_ROOM_BYTES) {
      throw new StoreError("STORAGE_FULL", {
        message: `The ${name} database has ${room} bytes of room left (at least ${MIN_STORAGE_ROOM_BYTES} are needed).`,
      });
    }
  }
}

/**
 * Postgres: the server's disk is out of sight, so a real write decides:
 * 64 KiB of random bytes written and deleted in one transaction, in a
 * table of the probe's own (made on first use). Only run while a write
 * has failed for want of room, so its dead rows are few.
 */
async function probePostgres(db: Kysely<EntityTables>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`create table if not exists ${sql.table(PROBE_TABLE)} (id integer primary key, data bytea not null)`.execute(
      trx,
    );
    await sql`insert into ${sql.table(PROBE_TABLE)} (id, data) values (1, ${randomBytes(POSTGRES_PROBE_BYTES)})
      on conflict (id) do update set data = excluded.data`.execute(trx);
    await sql`delete from ${sql.table(PROBE_TABLE)} where id = 1`.execute(trx);
  });
}

/** Resolves when the database has room for writes; rejects with `STORAGE_FULL` (or a driver error) otherwise. */
export function probeStorage(db: Kysely<EntityTables>, dialect: StoreDialect): Promise<void> {
  return PROBES[dialect](db);
}

/** Each dialect's probe (the store's own per-dialect table, as `migrate`'s column types). */
const PROBES: Readonly<Record<StoreDialect, (db: Kysely<EntityTables>) => Promise<void>>> = {
  sqlite: probeSqlite,
  postgres: probePostgres,
};
