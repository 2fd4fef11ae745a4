import { writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { runServer } from "verdaccio";

/** A verdaccio on loopback: svc's names published here only, everything else from npmjs. */
export interface LocalRegistry {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Starts verdaccio on 127.0.0.1 at an ephemeral port, its storage under
 * `dir`. `@svc/*` and `create-svc` are never looked up upstream (a name
 * taken on npmjs must not stand in for ours); every other package is
 * proxied to https://registry.npmjs.org and kept in the storage.
 */
export async function startRegistry(dir: string): Promise<LocalRegistry> {
  const config = join(dir, "verdaccio.yaml");
  const ours = "    access: $all\n    publish: $all\n    unpublish: $all\n";
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(join(dir, "storage"))}`,
      "auth:",
      "  htpasswd:",
      `    file: ${JSON.stringify(join(dir, "htpasswd"))}`,
      "    max_users: -1",
      "uplinks:",
      "  npmjs:",
      "    url: https://registry.npmjs.org/",
      "    timeout: 60s",
      "    maxage: 30m",
      "packages:",
      "  '@svc/*':",
      ours,
      "  'create-svc':",
      ours,
      "  '**':",
      "    access: $all",
      "    proxy: npmjs",
      "max_body_size: 200mb",
      "log: { type: stdout, format: pretty, level: error }",
      "",
    ].join("\n"),
  );
  const server: Server = await runServer(config);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
