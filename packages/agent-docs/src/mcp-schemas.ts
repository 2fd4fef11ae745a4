import { z } from "zod";

// The JSON-RPC 2.0 message shapes of the spec's MCP endpoint, used to
// describe `/mcp` in the OpenAPI document. The MCP server itself (another
// package) validates what it receives.

const jsonRpcIdSchema = z.union([z.string(), z.int()]);

/** A JSON-RPC 2.0 request or notification, as POSTed to `/mcp`. */
export const jsonRpcRequestSchema = z.object({
  jsonrpc: z.literal("2.0"),
  method: z
    .string()
    .describe(
      "One of initialize, server/discover, notifications/initialized, ping, tools/list, tools/call.",
    ),
  id: jsonRpcIdSchema.optional().describe("Omitted for a notification (answered 202, no body)."),
  params: z.record(z.string(), z.unknown()).optional(),
});

/** The `error` member of a failed JSON-RPC response. */
const jsonRpcErrorSchema = z.object({
  code: z.int(),
  message: z.string(),
  data: z.unknown().optional(),
});

/** A JSON-RPC 2.0 response: `result` on success, `error` on failure. */
export const jsonRpcResponseSchema = z.union([
  z.object({
    jsonrpc: z.literal("2.0"),
    id: z.union([jsonRpcIdSchema, z.null()]),
    result: z.record(z.string(), z.unknown()),
  }),
  z.object({
    jsonrpc: z.literal("2.0"),
    id: z.union([jsonRpcIdSchema, z.null()]),
    error: jsonRpcErrorSchema,
  }),
]);

/** The body of a 400 from `/mcp`: a JSON-RPC error with a null id. */
export const jsonRpcErrorResponseSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.null(),
  error: jsonRpcErrorSchema,
});
