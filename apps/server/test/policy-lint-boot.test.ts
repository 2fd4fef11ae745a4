import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../src/config.js";
import { startServer } from "../src/start-server.js";
import { ADMIN_TOKEN, tempDir } from "./fixtures.js";

/** An app whose read rule filters on a column with no index. */
function writeApp(dir: string): string {
  writeFileSync(
    join(dir, "svc.json"),
    JSON.stringify({
      manifest_version: 1,
      name: "lint",
      version: "0.0.1",
      auth: { trustedOrigins: ["http://localhost:5173"] },
      entities: [{ name: "Note", fields: [{ name: "ownerId", type: "string", owner: true }] }],
      policies: [{ name: "own", entity: "Note", allowRead: "auth.userId == data.ownerId" }],
    }),
  );
  return join(dir, "svc.json");
}

const base = (manifest: string) => ({
  SVC_PORT: "0",
  SVC_HOST: "127.0.0.1",
  SVC_MANIFEST: manifest,
  SVC_DB_PATH: ":memory:",
});

describe("policy lint at boot", () => {
  it("warns of the findings in dev mode, and only there", async () => {
    using dir = tempDir();
    const manifest = writeApp(dir.path);
    const dev = await startServer(parseConfig({ ...base(manifest), SVC_DEV_MODE: "true" }));
    try {
      expect(dev.warnings).toContainEqual(
        expect.stringMatching(
          /^policy lint: warning UNINDEXED_FILTER: policy "own" \(Note.allowRead\) filters Note on ownerId with no index.*"by_ownerId".*\(svc policy lint\)$/,
        ),
      );
    } finally {
      await dev.close({ drainSeconds: 0 });
    }
    const production = await startServer(
      parseConfig({ ...base(manifest), SVC_ADMIN_TOKEN: ADMIN_TOKEN }),
    );
    try {
      expect(production.warnings.some((warning) => warning.startsWith("policy lint"))).toBe(false);
    } finally {
      await production.close({ drainSeconds: 0 });
    }
  });
});
