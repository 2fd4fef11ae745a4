import { parseManifest } from "@svc/schema";
import type { Store } from "@svc/store";
import { describe, expect, it } from "vitest";
import { findDefinitionProblem } from "./check-definition.js";
import { createFunctionRunner } from "./create-function-runner.js";
import { action, type FunctionDefinition, mutation, query } from "./define-function.js";

// `cron` on a definition: checked with the definition, listed by the runner
// for a job worker (which enqueues and runs them; see @svc/jobs and the
// server's jobs test).

describe("cron on a function definition", () => {
  it.each([
    [{ type: "query", cron: "* * * * *", handler: (): null => null }, /a query cannot have "cron"/],
    [{ type: "mutation", cron: 5, handler: (): null => null }, /"cron" must be a cron expression/],
    [{ type: "action", cron: " ", handler: (): null => null }, /"cron" must be a cron expression/],
  ])("refuses %o", (definition, problem) => {
    expect(findDefinitionProblem(definition)).toMatch(problem);
  });

  it("lists the mutations and actions that run on a schedule, by name", () => {
    const functions = new Map<string, FunctionDefinition>([
      ["nightly", mutation({ cron: "0 3 * * *", handler: () => null })],
      ["poll", action({ cron: "*/5 * * * *", handler: () => null })],
      ["plain", mutation({ handler: () => null })],
      ["read", query({ handler: () => null })],
    ]);
    // Only the manifest is read while the runner is made.
    const store = { manifest: parseManifest({ manifest_version: 1, name: "t", version: "1" }) };
    const runner = createFunctionRunner({ store: store as unknown as Store, functions });
    expect(runner.schedules()).toEqual([
      { name: "nightly", cron: "0 3 * * *" },
      { name: "poll", cron: "*/5 * * * *" },
    ]);
  });
});
