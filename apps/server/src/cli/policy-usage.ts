/** A `svc policy` command line that does not parse: exit 2 with the usage. */
export class PolicyUsageError extends Error {}

/** The usage of the `svc policy` commands beyond `explain`. */
export const POLICY_USAGE = `Usage: svc policy <command> [options]

Commands:
  explain <Entity> <action>   the rules, their SQL and a verdict (svc policy explain --help)
  test                        runs policies.test.json (beside the manifest) through the
                              evaluator and the compiled SQL; exit 1 on a mismatch
  diff <old> <new>            per entity and action: widened, narrowed or same, with a
                              witness; exit 1 when access widens
  lint                        unindexed filters and lookups, always-true/false rules,
                              unpinned owners, rows that can move away, public reads
  check --claim "<Entity>.<action>: <expression>"
                              searches for a caller and row the rules admit that break
                              the claim (repeatable), running every candidate through
                              the SQL too; exit 1 on a counterexample or disagreement

Options:
  --manifest <path>           the manifest (default: $SVC_MANIFEST or svc.json)
  --file <path>               test: the access tests file (default: policies.test.json
                              beside the manifest)
  --database-url <url>        test, check, lint --measure: also run the SQL on this Postgres database
                              (in a rolled-back transaction; SQLite always runs)
  --allow-widening            diff: exit 0 even when access widens
  --bound <n>                 diff, lint, check: candidates searched per entity and action
                              (default 20000)
  --fail-on <level>           lint: error, warning (default) or never
  --measure                   lint: time each advised index on a seeded table
                              (SQLite; Postgres too with --database-url)
  --rows <n>                  lint --measure: rows seeded (default 20000)
  --json                      machine-readable output

<old> and <new> are manifest paths or git:<ref>:<path> (e.g. git:origin/main:svc.json).
`;
