import { InitializeResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_PROTOCOL_VERSION,
  isSupportedProtocolVersion,
  negotiateProtocolVersion,
  supportedProtocolVersions,
} from "./protocol-versions.js";
import { createSampleServer, post, rpc } from "./test-fixtures.js";

const server = createSampleServer();

describe("negotiateProtocolVersion", () => {
  it.each(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])("echoes %s", (version) => {
    expect(negotiateProtocolVersion(version)).toBe(version);
  });

  it.each(["2026-07-28", "2024-10-07", "2099-01-01", "", 20250618, undefined])(
    "answers the newest handshake version for %j",
    (requested) => {
      expect(negotiateProtocolVersion(requested)).toBe("2025-11-25");
    },
  );
});

describe("supported versions", () => {
  it("lists the stateless revision first and the handshake revisions after it", () => {
    expect(supportedProtocolVersions).toEqual([
      "2026-07-28",
      "2025-11-25",
      "2025-06-18",
      "2025-03-26",
      "2024-11-05",
    ]);
    expect(DEFAULT_PROTOCOL_VERSION).toBe("2025-03-26");
    expect(isSupportedProtocolVersion("2024-10-07")).toBe(false);
  });

  it.each([...supportedProtocolVersions])("accepts MCP-Protocol-Version: %s", async (version) => {
    const { status, json } = await post(server, rpc("ping"), { "mcp-protocol-version": version });
    expect(status).toBe(200);
    expect(json).toMatchObject({ id: 1, result: {} });
  });

  it("treats a request without the header as 2025-03-26 (no stateless extras)", async () => {
    const { json } = await post(server, rpc("tools/list"));
    expect(json).toMatchObject({ result: { tools: expect.any(Array) } });
    expect(json).not.toHaveProperty("result.resultType");
    expect(json).not.toHaveProperty("result.ttlMs");
  });
});

describe("initialize", () => {
  it.each(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])(
    "echoes the requested version %s",
    async (protocolVersion) => {
      const { json } = await post(
        server,
        rpc("initialize", {
          protocolVersion,
          capabilities: {},
          clientInfo: { name: "test", version: "0" },
        }),
      );
      expect(json).toMatchObject({ result: { protocolVersion } });
    },
  );

  it("answers the newest version it speaks when the requested one is unknown", async () => {
    const { json } = await post(server, rpc("initialize", { protocolVersion: "2030-01-01" }));
    expect(json).toMatchObject({ result: { protocolVersion: "2025-11-25" } });
  });

  it("reports capabilities, server info and instructions in the SDK's result shape", async () => {
    const { status, json } = await post(
      server,
      rpc("initialize", { protocolVersion: "2025-06-18", capabilities: {} }),
    );
    expect(status).toBe(200);
    expect(json).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: {
        protocolVersion: "2025-06-18",
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: "sample", version: "1.2.3", title: "Sample server" },
        instructions: "Search first, then read.",
      },
    });
    const result = (json as { result: unknown }).result;
    expect(InitializeResultSchema.safeParse(result).success).toBe(true);
  });

  it("leaves out title and instructions that were not configured", async () => {
    const bare = createSampleServer({ title: undefined, instructions: undefined });
    const { json } = await post(bare, rpc("initialize", { protocolVersion: "2025-06-18" }));
    expect(json).toMatchObject({ result: { serverInfo: { name: "sample", version: "1.2.3" } } });
    expect(json).not.toHaveProperty("result.serverInfo.title");
    expect(json).not.toHaveProperty("result.instructions");
  });
});

describe("server/discover (stateless revision 2026-07-28)", () => {
  it.each([undefined, "2026-07-28", "2025-06-18"])(
    "answers the discovery result with MCP-Protocol-Version %s",
    async (version) => {
      const { status, json } = await post(
        server,
        rpc("server/discover", {}),
        version === undefined ? {} : { "mcp-protocol-version": version },
      );
      expect(status).toBe(200);
      expect(json).toEqual({
        jsonrpc: "2.0",
        id: 1,
        result: {
          resultType: "complete",
          supportedVersions: [...supportedProtocolVersions],
          capabilities: { tools: { listChanged: false } },
          instructions: "Search first, then read.",
          _meta: {
            "io.modelcontextprotocol/serverInfo": {
              name: "sample",
              version: "1.2.3",
              title: "Sample server",
            },
          },
          ttlMs: 3_600_000,
          cacheScope: "public",
        },
      });
    },
  );

  it("uses the configured cache lifetime", async () => {
    const { json } = await post(createSampleServer({ cacheTtlMs: 60_000 }), rpc("server/discover"));
    expect(json).toMatchObject({ result: { ttlMs: 60_000 } });
  });

  it("marks every result complete and tools/list cacheable under 2026-07-28", async () => {
    const headers = { "mcp-protocol-version": "2026-07-28" };
    expect((await post(server, rpc("ping"), headers)).json).toMatchObject({
      result: { resultType: "complete" },
    });
    expect((await post(server, rpc("tools/list"), headers)).json).toMatchObject({
      result: { resultType: "complete", ttlMs: 3_600_000, cacheScope: "public" },
    });
    const call = await post(
      server,
      rpc("tools/call", { name: "echo", arguments: { text: "x" } }),
      headers,
    );
    expect(call.json).toMatchObject({
      result: { resultType: "complete", structuredContent: { text: "x" } },
    });
  });
});
