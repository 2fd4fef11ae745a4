import { entity, signInManifest, writeTestApp } from "./test-app.js";

/**
 * Writes the sync tests' app into `dir`: users, and tasks that follow their
 * assignee (reassignable, so a row can leave a user's view), plus the given
 * functions (name to module text) under functions/. Returns the manifest's
 * path, for SVC_MANIFEST.
 */
export function writeAssignedTasksApp(
  dir: string,
  name: string,
  functions: Readonly<Record<string, string>> = {},
): string {
  const manifest = signInManifest(name, {
    entities: [entity("Task", { title: "string", assigneeId: "string" })],
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
  });
  return writeTestApp(dir, manifest, functions);
}
