#!/usr/bin/env node
// Adds up the vitest JSON reports of every workspace package and prints one
// line, `Tests: N passed, N failed, N skipped`, so CI logs end with a total.
// Exits non-zero when no test ran at all.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..", "..");
const dirs = ["packages", "apps"].flatMap((group) =>
  existsSync(join(root, group))
    ? readdirSync(join(root, group)).map((name) => join(root, group, name))
    : [],
);
dirs.push(join(root, "tooling"), join(root, "tooling", "publish"), join(root, "bench"));

let passed = 0;
let failed = 0;
let skipped = 0;
for (const dir of dirs) {
  const file = join(dir, ".vitest-report.json");
  if (!existsSync(file)) continue;
  const report = JSON.parse(readFileSync(file, "utf8"));
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
}
console.log(`Tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (passed + failed === 0) process.exit(1);
