import type { McpServerError } from "./errors.js";
import type { JsonObject, JsonRpcId, JsonRpcResponse } from "./json-rpc.js";

/** What the server answers; adapters copy it onto their framework's response. */
export interface McpHttpResponse {
  status: number;
  headers: Record<string, string>;
  /** JSON text; absent for 202 Accepted. */
  body?: string;
}

const jsonHeaders = {
  "content-type": "application/json",
  "cache-control": "no-store",
} as const;

/** 202 Accepted with no body: the answer to a notification or a client response. */
export function acceptedResponse(): McpHttpResponse {
  return { status: 202, headers: { "cache-control": "no-store" } };
}

/** 200 with a JSON-RPC success response. */
export function resultResponse(id: JsonRpcId, result: JsonObject): McpHttpResponse {
  const message: JsonRpcResponse = { jsonrpc: "2.0", id, result };
  return { status: 200, headers: { ...jsonHeaders }, body: JSON.stringify(message) };
}

/**
 * The one place a wire error becomes HTTP: the error's status (200 for
 * JSON-RPC errors) and a JSON-RPC error response under `id` (null when the
 * request's id is unknown). 405 adds `Allow: POST`.
 */
export function errorResponse(error: McpServerError, id: JsonRpcId | null = null): McpHttpResponse {
  const message: JsonRpcResponse = {
    jsonrpc: "2.0",
    id,
    error: {
      code: error.rpcCode ?? -32603,
      message: error.message,
      ...(error.data === undefined ? {} : { data: error.data }),
    },
  };
  const status = error.status ?? 500;
  const headers: Record<string, string> = { ...jsonHeaders };
  if (status === 405) headers.allow = "POST";
  return { status, headers, body: JSON.stringify(message) };
}
