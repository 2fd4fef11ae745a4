import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TRUSTED_ORIGIN } from "./auth-fixtures.js";

/**
 * Writes the sync tests' app into `dir`: users, and tasks that follow their
 * assignee (reassignable, so a row can leave a user's view), plus the given
 * function sources (file name to module text) under functions/. Returns the
 * manifest's path, for SVC_MANIFEST.
 */
export function writeAssignedTasksApp(
  dir: string,
  name: string,
  functions: Readonly<Record<string, string>> = {},
): string {
  const manifest = {
    manifest_version: 1,
    name,
    version: "1",
    auth: { trustedOrigins: [TRUSTED_ORIGIN] },
    entities: [
      {
        name: "User",
        fields: [
          { name: "email", type: "string", unique: true },
          { name: "emailVerified", type: "string", optional: true },
        ],
      },
      {
        name: "Task",
        fields: [
          { name: "title", type: "string" },
          { name: "assigneeId", type: "string" },
        ],
      },
    ],
    policies: [
      {
        name: "assigned tasks",
        entity: "Task",
        allowRead: "auth.userId == data.assigneeId",
        allowInsert: "auth.userId == data.assigneeId",
        allowUpdate: "auth.userId == existing.assigneeId",
        allowDelete: "auth.userId == existing.assigneeId",
      },
    ],
  };
  writeFileSync(join(dir, "svc.json"), JSON.stringify(manifest));
  mkdirSync(join(dir, "functions"));
  for (const [file, source] of Object.entries(functions)) {
    writeFileSync(join(dir, "functions", file), source);
  }
  return join(dir, "svc.json");
}
