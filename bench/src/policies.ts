// `pnpm bench` (second part): the cost of row policies. 10,000 rows of which
// 1,000 are visible to the caller, listed through the store (policy pushed
// down into SQL, rows decoded) against the hand-written SQL that returns the
// same rows, in the same process and run, on SQLite (and Postgres when
// SVC_BENCH_DATABASE_URL is set); plus the reference
// evaluator's throughput for a typical rule.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compilePolicies, evaluate, rulesFor } from "@svc/policy-engine";
import { type ManifestInput, parseManifest } from "@svc/schema";
import { adminAuth, createAuthContext, createStore, type StoreDatabase } from "@svc/store";
import { openPostgres } from "@svc/store/pg";
import { openSqlite } from "@svc/store/sqlite";
import Database from "better-sqlite3";
import pg from "pg";

const ROWS = 10_000;
const VISIBLE = 1_000;
const ORGS = ROWS / VISIBLE;
const ROUNDS = Number(process.env.BENCH_POLICY_ROUNDS ?? 60);
const TARGET = 1.25;

function manifestWith(readRule: string): ManifestInput {
  return {
    manifest_version: 1,
    name: "policy-bench",
    version: "0",
    entities: [
      {
        name: "Doc",
        fields: [
          { name: "title", type: "string" },
          { name: "ownerId", type: "string", owner: true },
          { name: "orgId", type: "string" },
          { name: "n", type: "int" },
        ],
        indexes: [
          { name: "by_owner", fields: ["ownerId"] },
          { name: "by_org", fields: ["orgId"] },
        ],
      },
      {
        name: "OrgMember",
        fields: [
          { name: "orgId", type: "string" },
          { name: "userId", type: "string" },
          { name: "role", type: "string" },
        ],
        indexes: [{ name: "by_org_user", fields: ["orgId", "userId"] }],
      },
    ],
    policies: [{ name: "read", entity: "Doc", allowRead: readRule }],
  };
}

const cases = [
  {
    name: "owner",
    label: "owner rule    auth.userId == data.ownerId",
    rule: "auth.userId == data.ownerId",
    handWritten:
      'select "id", "title", "ownerId", "orgId", "n" from "Doc" where "ownerId" = ? order by "id" limit 1001',
  },
  {
    name: "exists",
    label: "exists rule   exists(OrgMember where orgId == data.orgId && userId == auth.userId)",
    rule: "exists(OrgMember where orgId == data.orgId && userId == auth.userId)",
    handWritten:
      'select "id", "title", "ownerId", "orgId", "n" from "Doc" where exists (select 1 from "OrgMember" m where m."orgId" = "Doc"."orgId" and m."userId" = ?) order by "id" limit 1001',
  },
] as const;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** A database to measure on: how to open it for the store and run hand-written SQL. */
interface Target {
  readonly name: string;
  open(caseName: string): Promise<{
    readonly store: StoreDatabase;
    /** Runs a hand-written query (`?` placeholders) and resolves with its rows. */
    readonly handWritten: (text: string, userId: string) => Promise<unknown[]>;
    close(): Promise<void>;
  }>;
}

function sqliteTarget(dir: string): Target {
  return {
    name: "SQLite",
    async open(caseName) {
      const path = join(dir, `${caseName}.db`);
      const store = openSqlite(path);
      let raw: Database.Database | undefined;
      const statements = new Map<string, Database.Statement>();
      return {
        store,
        async handWritten(text, userId) {
          raw ??= new Database(path, { readonly: true });
          let statement = statements.get(text);
          if (statement === undefined) {
            statement = raw.prepare(text);
            statements.set(text, statement);
          }
          return statement.all(userId);
        },
        async close() {
          raw?.close();
          await store.close();
        },
      };
    },
  };
}

function postgresTarget(url: string): Target {
  return {
    name: "Postgres",
    async open(caseName) {
      const schema = `svc_bench_${caseName}_${process.pid}`;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`drop schema if exists "${schema}" cascade; create schema "${schema}"`);
      const scoped = new URL(url);
      scoped.searchParams.set("options", `-c search_path=${schema}`);
      const store = openPostgres(scoped.toString(), { max: 4 });
      const pool = new pg.Pool({ connectionString: scoped.toString(), max: 1 });
      return {
        store,
        async handWritten(text, userId) {
          let n = 0;
          const numbered = text.replace(/\?/g, () => `$${++n}`);
          return (await pool.query({ name: `q${text.length}`, text: numbered, values: [userId] }))
            .rows;
        },
        async close() {
          await pool.end();
          await store.close();
          await admin.query(`drop schema if exists "${schema}" cascade`);
          await admin.end();
        },
      };
    },
  };
}

async function measureCase(target: Target, spec: (typeof cases)[number]): Promise<string> {
  const manifest = parseManifest(manifestWith(spec.rule));
  const opened = await target.open(spec.name);
  try {
    const store = createStore({ ...opened.store, manifest });
    await store.migrate();
    await store.transaction(adminAuth, async (db) => {
      for (let i = 0; i < ROWS; i += 1) {
        await db.insert("Doc", {
          title: `doc ${i}`,
          ownerId: `u${i % ORGS}`,
          orgId: `o${i % ORGS}`,
          n: i,
        });
      }
      await db.insert("OrgMember", { orgId: "o0", userId: "u0", role: "member" });
    });
    const reader = store.reader(createAuthContext({ userId: "u0" }));
    const viaStore = await reader.query("Doc", { limit: 1000 });
    const viaSQL = await opened.handWritten(spec.handWritten, "u0");
    if (viaStore.rows.length !== VISIBLE || viaSQL.length !== VISIBLE) {
      throw new Error(
        `expected ${VISIBLE} visible rows, got ${viaStore.rows.length} / ${viaSQL.length}`,
      );
    }
    const storeTimes: number[] = [];
    const sqlTimes: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      let started = performance.now();
      await reader.query("Doc", { limit: 1000 });
      storeTimes.push(performance.now() - started);
      started = performance.now();
      await opened.handWritten(spec.handWritten, "u0");
      sqlTimes.push(performance.now() - started);
    }
    const storeMs = median(storeTimes);
    const sqlMs = median(sqlTimes);
    const ratio = storeMs / sqlMs;
    return `${spec.label}\n    store ${storeMs.toFixed(2)} ms   hand-written ${sqlMs.toFixed(2)} ms   ratio ${ratio.toFixed(2)}x   target <= ${TARGET}x   ${ratio <= TARGET ? "met" : "MISSED"}`;
  } finally {
    await opened.close();
  }
}

function evaluatorThroughput(): string {
  const compiled = compilePolicies(parseManifest(manifestWith("auth.userId == data.ownerId")));
  const [rule] = rulesFor(compiled, "Doc", "read");
  if (rule === undefined) throw new Error("no read rule");
  const auth = createAuthContext({ userId: "u3" });
  const rows = Array.from({ length: 1024 }, (_, i) => ({ ownerId: `u${i % 10}`, orgId: "o1" }));
  const evaluations = 2_000_000;
  let allowed = 0;
  const started = performance.now();
  for (let i = 0; i < evaluations; i += 1) {
    if (evaluate(rule, { auth, data: rows[i & 1023] })) allowed += 1;
  }
  const seconds = (performance.now() - started) / 1000;
  return `evaluator     auth.userId == data.ownerId: ${Math.round(evaluations / seconds).toLocaleString("en-US")} evaluations/s (${allowed.toLocaleString("en-US")} allowed)`;
}

const dir = mkdtempSync(join(tmpdir(), "svc-bench-policies-"));
const targets = [sqliteTarget(dir)];
const postgresURL = process.env.SVC_BENCH_DATABASE_URL;
if (postgresURL) targets.push(postgresTarget(postgresURL));
try {
  for (const target of targets) {
    console.log(
      `\nRow policies on ${target.name}: ${ROWS.toLocaleString("en-US")} rows, ${VISIBLE.toLocaleString("en-US")} visible, median of ${ROUNDS} rounds`,
    );
    for (const spec of cases) console.log(await measureCase(target, spec));
  }
  if (!postgresURL) console.log("(set SVC_BENCH_DATABASE_URL to measure Postgres too)");
  console.log(evaluatorThroughput());
} finally {
  rmSync(dir, { recursive: true, force: true });
}
