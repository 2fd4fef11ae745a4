// `pnpm bench` (second part): the cost of row policies. 10,000 rows of which
// 1,000 are visible to the caller, listed through the store (policy pushed
// down into SQL, rows decoded) against the hand-written SQL that returns the
// same rows, in the same process and run, on SQLite; plus the reference
// evaluator's throughput for a typical rule.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compilePolicies, evaluate, rulesFor } from "@svc/policy-engine";
import { type ManifestInput, parseManifest } from "@svc/schema";
import { adminAuth, createAuthContext, createStore } from "@svc/store";
import { openSqlite } from "@svc/store/sqlite";
import Database from "better-sqlite3";

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
    label: "owner rule    auth.userId == data.ownerId",
    rule: "auth.userId == data.ownerId",
    handWritten:
      'select "id", "title", "ownerId", "orgId", "n" from "Doc" where "ownerId" = ? order by "id" limit 1001',
  },
  {
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

async function measureCase(dir: string, spec: (typeof cases)[number]): Promise<string> {
  const path = join(dir, `${spec.rule.length}.db`);
  const manifest = parseManifest(manifestWith(spec.rule));
  const opened = openSqlite(path);
  const store = createStore({ ...opened, manifest });
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
  const raw = new Database(path, { readonly: true });
  const statement = raw.prepare(spec.handWritten);
  const reader = store.reader(createAuthContext({ userId: "u0" }));

  const viaStore = await reader.query("Doc", { limit: 1000 });
  const viaSQL = statement.all("u0") as { id: string }[];
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
    statement.all("u0");
    sqlTimes.push(performance.now() - started);
  }
  raw.close();
  await opened.close();
  const storeMs = median(storeTimes);
  const sqlMs = median(sqlTimes);
  const ratio = storeMs / sqlMs;
  return `${spec.label}\n    store ${storeMs.toFixed(2)} ms   hand-written ${sqlMs.toFixed(2)} ms   ratio ${ratio.toFixed(2)}x   target <= ${TARGET}x   ${ratio <= TARGET ? "met" : "MISSED"}`;
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
try {
  console.log(
    `\nRow policies on SQLite: ${ROWS.toLocaleString("en-US")} rows, ${VISIBLE.toLocaleString("en-US")} visible, median of ${ROUNDS} rounds`,
  );
  for (const spec of cases) console.log(await measureCase(dir, spec));
  console.log(evaluatorThroughput());
} finally {
  rmSync(dir, { recursive: true, force: true });
}
