import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import express, { type Router } from "express";
import { type DocsLibrary, loadDocs } from "../src/load-docs.js";

/** The sample pages the tests load instead of the package's own content. */
export const fixtureContentDir = fileURLToPath(new URL("./fixtures/content/", import.meta.url));
/** The sample authoring guide. */
export const fixtureSkillPath = fileURLToPath(
  new URL("./fixtures/skill/SKILL.md", import.meta.url),
);

/** The fixture library. */
export function loadFixtureDocs(): Promise<DocsLibrary> {
  return loadDocs({ contentDir: fixtureContentDir, skillPath: fixtureSkillPath });
}

/** A running express app on an ephemeral loopback port. */
export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

/**
 * Mounts `router` in a fresh express app (beside a `GET /outside` route) and
 * listens on 127.0.0.1:0. `trustProxy` is express's `trust proxy` setting.
 */
export async function serveRouter(
  router: Router,
  options: { trustProxy?: string } = {},
): Promise<TestServer> {
  const app = express();
  if (options.trustProxy !== undefined) app.set("trust proxy", options.trustProxy);
  app.use(router);
  app.get("/outside", (_req, res) => {
    res.json({ outside: true });
  });
  return new Promise((resolve, reject) => {
    const server = app.listen(0, "127.0.0.1", (error?: Error) => {
      if (error) {
        reject(error);
        return;
      }
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((closeError) => (closeError ? fail(closeError) : done()));
            server.closeAllConnections();
          }),
      });
    });
  });
}
