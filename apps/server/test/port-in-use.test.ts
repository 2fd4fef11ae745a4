import { describe, expect, it } from "vitest";
import { ConfigError } from "../src/config.js";
import { startTestServer } from "./fixtures.js";

// Every app defaults to the ports 4321-4324, so a second app on one machine
// meets a port in use. Regression: the boot ended with node's bare
// `listen EADDRINUSE` and no word of SVC_PORT.

describe("a second server on the same ports", () => {
  it("stops with a ConfigError naming SVC_PORT and the next block to try", async () => {
    await using first = await startTestServer({ SVC_DB_PATH: ":memory:" });
    const port = first.port;

    const second = startTestServer({ SVC_DB_PATH: ":memory:", SVC_PORT: String(port) });
    await expect(second).rejects.toBeInstanceOf(ConfigError);
    await expect(second).rejects.toMatchObject({
      variable: "SVC_PORT",
      message: `SVC_PORT: the HTTP (SVC_PORT) port ${port} is already in use (another svc app?); each server takes four ports, SVC_PORT to SVC_PORT + 3 (now ${port}-${port + 3}): stop the other one or choose another block, e.g. SVC_PORT=${port + 4}`,
    });
    // The first server is untouched.
    expect((await fetch(`${first.url}/health`)).status).toBe(200);
  });
});
