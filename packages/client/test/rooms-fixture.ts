import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { userEntity } from "@svc/tooling/manifests";

/**
 * A manifest with rooms for the room tests, in a temp dir: `lobby` (any
 * signed-in caller), `team` (members of the team named by the key, through
 * an `exists` lookup) and `shut` (nobody but the admin token). `dispose`
 * removes the dir.
 */
export function writeRoomsApp(): { manifest: string; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), "svc-client-rooms-"));
  const manifest = {
    manifest_version: 1,
    name: "rooms-test",
    version: "1",
    entities: [
      userEntity(),
      {
        name: "Membership",
        fields: [
          { name: "teamId", type: "string" },
          { name: "userId", type: "string", owner: true },
        ],
      },
    ],
    policies: [
      {
        name: "own memberships",
        entity: "Membership",
        allowRead: "auth.userId == data.userId",
        allowInsert: "auth.userId == data.userId",
      },
    ],
    rooms: [
      { name: "lobby", join: "auth.userId != null" },
      {
        name: "team",
        join: "exists(Membership where teamId == room.key && userId == auth.userId)",
      },
      { name: "shut", join: "false" },
    ],
  };
  writeFileSync(join(dir, "svc.json"), JSON.stringify(manifest));
  return {
    manifest: join(dir, "svc.json"),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
