import { afterEach, describe, expect, it } from "vitest";
import { loadFixtureDocs, serveRouter, type TestServer } from "../../test/helpers.js";
import { errorEnvelopeSchema } from "../schemas.js";
import { createAgentRateLimiter } from "./rate-limit.js";
import { agentApiRouter } from "./router.js";

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(options: Parameters<typeof agentApiRouter>[0]["rateLimit"]): Promise<string> {
  const server = await serveRouter(
    agentApiRouter({ library: await loadFixtureDocs(), rateLimit: options }),
  );
  servers.push(server);
  return server.url;
}

describe("agent API rate limit", () => {
  it("announces the quota in the standard headers and answers 429 with the envelope past it", async () => {
    const url = await start({ windowMs: 60_000, limit: 2 });
    const first = await fetch(`${url}/agent/v1/docs`);
    expect(first.status).toBe(200);
    expect(first.headers.get("ratelimit-policy")).toMatch(/^"svc-agent"; q=2; w=60/);
    expect(first.headers.get("ratelimit")).toMatch(/^"svc-agent"; r=1; t=\d+/);
    expect(first.headers.get("x-ratelimit-limit")).toBeNull();
    expect(first.headers.get("x-ratelimit-remaining")).toBeNull();

    // Errors count too: the second request is a 400.
    expect((await fetch(`${url}/agent/v1/docs/search`)).status).toBe(400);

    const limited = await fetch(`${url}/agent/v1/skill`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(limited.headers.get("ratelimit")).toMatch(/^"svc-agent"; r=0; t=\d+/);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited.headers.get("cache-control")).toBe("no-store");
    expect(limited.headers.get("access-control-allow-origin")).toBe("*");
    const body = errorEnvelopeSchema.parse(await limited.json());
    expect(body.error).toEqual({
      code: "RATE_LIMITED",
      message: "Too many requests; wait before retrying.",
    });

    // Paths outside the agent API are not counted or limited.
    expect((await fetch(`${url}/outside`)).status).toBe(200);
  });

  it("defaults to 300 requests per minute", async () => {
    const url = await start(undefined);
    const response = await fetch(`${url}/agent/v1/docs`);
    expect(response.headers.get("ratelimit-policy")).toMatch(/q=300; w=60/);
  });

  it("can be switched off", async () => {
    const url = await start(false);
    const response = await fetch(`${url}/agent/v1/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get("ratelimit")).toBeNull();
  });

  it.each([[{ limit: 0 }], [{ limit: 1.5 }], [{ windowMs: -1 }], [{ windowMs: Number.NaN }]])(
    "rejects the invalid options %j",
    (options) => {
      expect(() => createAgentRateLimiter(options)).toThrow(
        expect.objectContaining({ code: "INVALID_OPTIONS" }),
      );
    },
  );
});
