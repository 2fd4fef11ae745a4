import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  parseShellSteps,
  runShellSteps,
  type ShellStep,
  shellBlocks,
  showsExpected,
} from "@svc/tooling/readme-shell";
import { describe, expect, it } from "vitest";
import { startLoopbackServer, TODO_MANIFEST, tempDir } from "./fixtures.js";

// The root README's walk-through, run as a reader pastes it into a second
// terminal at the checkout's root while `pnpm dev` serves examples/todo:
// every command must succeed and print what the README shows under it.
// Regression: it pasted placeholders (`"code":"123456"`, `Bearer pk.key_8w9z…`)
// that failed as written.
//
// The dev server runs here on a free port, so `localhost:4321` becomes its
// address; its database is a temporary file (the backup command reads
// SVC_DB_PATH too) and the backup goes to the temporary directory. The
// admin token is the one dev mode keeps in examples/todo/.svc/admin-token,
// as for `pnpm dev`.

const ROOT = resolve(import.meta.dirname, "..", "..", "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const STEPS: ShellStep[] = shellBlocks(README, "A walk through the default app").flatMap(
  parseShellSteps,
);

/** Exit statuses a step may end with besides 0: curl's 28 when `--max-time` ends a stream. */
function allowedStatuses(step: ShellStep): number[] {
  return step.command.includes("--max-time") ? [0, 28] : [0];
}

describe("the README's walk-through", () => {
  it("is written with no placeholder a reader must replace", () => {
    expect(STEPS.length).toBeGreaterThan(20);
    for (const step of STEPS) {
      expect(step.command, step.command).not.toMatch(/…|<[a-z][^>]*>|\.\.\./);
    }
    // The parts a reader needs: the sign-in code and the token come from the answers.
    const commands = STEPS.map((step) => step.command).join("\n");
    expect(commands).toContain("CODE=$(");
    expect(commands).toContain("TOKEN=$(");
    expect(commands).toContain("KEY=$(");
    expect(commands).toContain('new WebSocket("ws://localhost:4321/ws", ["svc.v1", `bearer.');
  });

  it("runs against a dev server, each command printing what the README shows", async () => {
    using dir = tempDir();
    await using server = await startLoopbackServer(
      {
        SVC_MANIFEST: TODO_MANIFEST,
        SVC_DB_PATH: join(dir.path, "data.db"),
        SVC_DEV_MODE: "true",
      },
      { logDestination: { write: () => undefined } },
    );
    const address = `127.0.0.1:${server.port}`;
    const steps = STEPS.map((step) => ({
      ...step,
      command: step.command
        .replaceAll("localhost:4321", address)
        .replaceAll("/tmp/todo-backup", join(dir.path, "todo-backup")),
      expected: step.expected.map((line) =>
        line.replaceAll("/tmp/todo-backup", join(dir.path, "todo-backup")),
      ),
    }));
    const results = await runShellSteps(steps, {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? dir.path,
        SVC_DB_PATH: join(dir.path, "data.db"),
        npm_config_update_notifier: "false",
      },
      timeoutMs: 90_000,
    });
    expect(results).toHaveLength(steps.length);
    // Every mismatch at once, each with the command, what it printed and what the README shows.
    const mismatches = results
      .filter(
        ({ step, output, status }) =>
          !allowedStatuses(step).includes(status) || !showsExpected(output, step.expected),
      )
      .map(
        ({ step, output, status }) =>
          `$ ${step.command}\n${output}\n(exit ${status})\nthe README shows:\n${step.expected.join("\n")}`,
      );
    expect(mismatches).toEqual([]);
    expect(results.filter((result) => result.step.expected.length > 0).length).toBeGreaterThan(15);
  }, 120_000);
});
