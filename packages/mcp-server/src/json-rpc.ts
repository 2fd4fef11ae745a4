import { z } from "zod";

/** A JSON-RPC request id: a string or an integer (never null for a request). */
export type JsonRpcId = string | number;

/** A JSON object as it arrives on the wire. */
export type JsonObject = Record<string, unknown>;

/** True for a non-null, non-array object. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const idSchema = z.union([z.string(), z.int()]);

const envelopeSchema = z.object({
  jsonrpc: z.literal("2.0"),
  method: z.string().min(1),
  params: z.custom<JsonObject>(isJsonObject, "params must be an object").optional(),
});

/** One incoming message, classified. */
export type IncomingMessage =
  | { kind: "request"; id: JsonRpcId; method: string; params: JsonObject }
  | { kind: "notification"; method: string }
  | { kind: "response" }
  | { kind: "invalid"; id: JsonRpcId | null; reason: string };

/**
 * Classify one parsed JSON value as a JSON-RPC 2.0 request, notification,
 * client response (which this server never asked for and ignores) or an
 * invalid message with the id to answer it under (null when the id itself is
 * missing or unusable).
 */
export function classifyMessage(value: unknown): IncomingMessage {
  if (Array.isArray(value)) {
    return { kind: "invalid", id: null, reason: "Batches are not supported; send one message." };
  }
  if (!isJsonObject(value)) {
    return { kind: "invalid", id: null, reason: "The message must be a JSON object." };
  }
  const hasId = "id" in value;
  const parsedId = idSchema.safeParse(value.id);
  if (hasId && !parsedId.success) {
    return { kind: "invalid", id: null, reason: "The id must be a string or an integer." };
  }
  const id = parsedId.success ? parsedId.data : null;
  if (!("method" in value) && id !== null && value.jsonrpc === "2.0") {
    if ("result" in value || "error" in value) return { kind: "response" };
  }
  const envelope = envelopeSchema.safeParse(value);
  if (!envelope.success) {
    return { kind: "invalid", id, reason: describeEnvelopeIssue(envelope.error) };
  }
  const { method, params } = envelope.data;
  if (id === null) return { kind: "notification", method };
  return { kind: "request", id, method, params: params ?? {} };
}

function describeEnvelopeIssue(error: z.ZodError): string {
  const field = error.issues[0]?.path[0];
  if (field === "jsonrpc") return 'The jsonrpc member must be "2.0".';
  if (field === "method") return "The method member must be a non-empty string.";
  if (field === "params") return "The params member must be an object.";
  return "The message is not a valid JSON-RPC 2.0 request.";
}

/** A JSON-RPC error object. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/** A JSON-RPC 2.0 response: `result` on success, `error` on failure. */
export type JsonRpcResponse =
  | { jsonrpc: "2.0"; id: JsonRpcId; result: JsonObject }
  | { jsonrpc: "2.0"; id: JsonRpcId | null; error: JsonRpcErrorObject };

/**
 * One line per zod issue (at most five), e.g. `q: Too small: expected string
 * to have >=1 characters`, for error messages sent back to the client.
 */
export function formatIssues(error: z.ZodError): string {
  const lines = error.issues.slice(0, 5).map((issue) => {
    const path = issue.path.map(String).join(".");
    return path === "" ? issue.message : `${path}: ${issue.message}`;
  });
  if (error.issues.length > 5) lines.push(`and ${error.issues.length - 5} more`);
  return lines.join("; ");
}
