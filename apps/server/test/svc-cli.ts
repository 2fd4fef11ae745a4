import { matchTarget, type TestDatabase, type TestDatabaseTarget } from "@svc/tooling/databases";
import { afterAll, beforeAll } from "vitest";
import { runCli } from "../src/cli/run-cli.js";

/** What one `svc` command did: its exit code and everything it printed. */
export interface CliResult {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Runs the `svc` command line in process with `env` and collects what it prints. */
export async function runSvc(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<CliResult> {
  let out = "";
  let err = "";
  const code = await runCli(
    argv,
    {
      stdout: (text) => {
        out += text;
      },
      stderr: (text) => {
        err += text;
      },
    },
    env,
  );
  return { code, out, err };
}

/** Runs `svc <argv>` with an empty environment. */
export function svc(...argv: string[]): Promise<CliResult> {
  return runSvc(argv);
}

/** The suite's fresh database and the `svc` flags that point a command at it. */
export interface CliDatabase {
  target(): TestDatabaseTarget;
  /** `--database-url` on Postgres; none on SQLite, where the command uses its own file. */
  flags(): string[];
}

/** Creates a fresh `database` before the enclosing `describe` and destroys it after. */
export function cliDatabasePerSuite(database: TestDatabase): CliDatabase {
  let target: TestDatabaseTarget | undefined;
  beforeAll(async () => {
    target = await database.create();
  });
  afterAll(async () => {
    if (target !== undefined) await database.destroy(target);
  });
  const current = (): TestDatabaseTarget => {
    if (target === undefined) throw new Error("the suite's database is used outside the suite");
    return target;
  };
  return {
    target: current,
    flags: () =>
      matchTarget<string[]>(current(), {
        sqlite: () => [],
        postgres: ({ url }) => ["--database-url", url],
      }),
  };
}
