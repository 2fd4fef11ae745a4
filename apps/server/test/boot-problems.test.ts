import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { spawnedPerTest } from "./process.js";

// `pnpm start` with nothing set, as a first production try goes: every
// setting to fix comes out at once, one line each. Regression: one attempt
// per missing variable (SVC_ADMIN_TOKEN, then SVC_MANIFEST).

const spawn = spawnedPerTest();

describe("svc-server with nothing configured", () => {
  it("names the missing manifest and admin token together, one line each", async () => {
    const server = spawn({});
    const { code, stderr } = await server.exited;
    expect(code).toBe(1);
    // spawnServer runs in apps/server, which holds no svc.json.
    const manifest = resolve(import.meta.dirname, "..", "svc.json");
    expect(stderr.trim().split("\n")).toEqual([
      `svc: invalid configuration: SVC_MANIFEST: cannot read ${manifest}: no such file (SVC_MANIFEST is unset, so svc.json in the working directory; set it to your app's manifest)`,
      "svc: invalid configuration: SVC_ADMIN_TOKEN: must be set outside dev mode (SVC_DEV_MODE=true)",
    ]);
  });
});
