export type { McpCallToolResult, McpToolCallEvent, McpToolCallOutcome } from "./call-tool.js";
export {
  createMcpServer,
  type McpHttpRequest,
  type McpServer,
  type McpServerOptions,
} from "./create-mcp-server.js";
export type { McpServerInfo } from "./dispatch.js";
export {
  type McpErrorCode,
  McpServerError,
  type McpWireErrorCode,
  mcpErrorCodes,
} from "./errors.js";
export type { McpHttpHeaders } from "./http-headers.js";
export type { McpHttpResponse } from "./http-response.js";
export type { JsonRpcErrorObject, JsonRpcId, JsonRpcResponse } from "./json-rpc.js";
export {
  DEFAULT_PROTOCOL_VERSION,
  handshakeProtocolVersions,
  type McpProtocolVersion,
  negotiateProtocolVersion,
  STATELESS_PROTOCOL_VERSION,
  supportedProtocolVersions,
} from "./protocol-versions.js";
export {
  defineMcpTool,
  type McpObjectJsonSchema,
  type McpTool,
  type McpToolDescriptor,
} from "./tool.js";
