import { createHash } from "node:crypto";
import Database from "better-sqlite3";

/** How many rows the list case reads. */
export const ITEM_COUNT = 1000;

/** An `Item` as the bench inserts it (`createdAt` comes from `defaultNow`). */
export interface ItemInput {
  readonly name: string;
  readonly count: number;
  readonly active: boolean;
}

/** An `Item` as stored. */
export interface ItemRow extends ItemInput {
  readonly id: string;
  readonly createdAt: string;
}

/** The same `count` deterministic items on every run. */
export function makeItems(count: number): ItemInput[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `item ${String(i).padStart(4, "0")}`,
    count: (i * 7919) % 10_000,
    active: i % 3 !== 0,
  }));
}

/** Stored rows for the items when no svc server made them (`BENCH_ONLY=baselines`). */
export function withSyntheticIds(items: readonly ItemInput[]): ItemRow[] {
  const createdAt = "2025-01-01T00:00:00.000Z";
  return items.map((item, i) => ({
    id: createHash("sha1").update(`item-${i}`).digest("hex"),
    ...item,
    createdAt,
  }));
}

function isItemRow(value: unknown): value is ItemRow {
  if (typeof value !== "object" || value === null) return false;
  const row = value as Record<string, unknown>;
  return (
    typeof row.id === "string" &&
    typeof row.name === "string" &&
    typeof row.count === "number" &&
    typeof row.active === "boolean" &&
    typeof row.createdAt === "string"
  );
}

/** Checks a list answer from svc: an array of `count` item rows. */
export function parseItemRows(body: unknown, count: number): ItemRow[] {
  if (!Array.isArray(body)) throw new Error("expected a JSON array of rows");
  if (body.length !== count) throw new Error(`expected ${count} rows, got ${body.length}`);
  return body.map((row: unknown, i) => {
    if (!isItemRow(row)) {
      throw new Error(
        `row ${i} is not {id, name, count, active, createdAt}: ${JSON.stringify(row)}`,
      );
    }
    return {
      id: row.id,
      name: row.name,
      count: row.count,
      active: row.active,
      createdAt: row.createdAt,
    };
  });
}

/** Writes the rows into a fresh better-sqlite3 file for baseline C. */
export function writeItemsDatabase(path: string, rows: readonly ItemRow[]): void {
  const db = new Database(path);
  try {
    db.pragma("journal_mode = WAL");
    db.exec(`CREATE TABLE "Item" (
      "id" TEXT PRIMARY KEY NOT NULL,
      "name" TEXT NOT NULL,
      "count" INTEGER NOT NULL,
      "active" INTEGER NOT NULL,
      "createdAt" TEXT NOT NULL
    )`);
    const insert = db.prepare(
      'INSERT INTO "Item" ("id", "name", "count", "active", "createdAt") VALUES (?, ?, ?, ?, ?)',
    );
    db.transaction(() => {
      for (const row of rows) {
        insert.run(row.id, row.name, row.count, row.active ? 1 : 0, row.createdAt);
      }
    })();
  } finally {
    db.close();
  }
}
