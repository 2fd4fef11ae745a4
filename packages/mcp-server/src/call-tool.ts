import { McpServerError } from "./errors.js";
import { formatIssues, isJsonObject, type JsonObject } from "./json-rpc.js";
import type { RegisteredTool } from "./tool.js";

/** The `tools/call` result shape. */
export interface McpCallToolResult {
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: JsonObject;
  isError?: boolean;
}

/** How one tool call ended, as reported to `onToolCall`. */
export type McpToolCallOutcome =
  /** The handler's output was valid and sent. */
  | "success"
  /** The arguments failed the input schema; an `isError` result was sent. */
  | "invalid-arguments"
  /** The handler threw; an `isError` result was sent. */
  | "tool-error"
  /** The output failed the output schema or could not be rendered; -32603 was sent. */
  | "internal-error";

/** What `onToolCall` learns about each call of a registered tool. */
export interface McpToolCallEvent {
  /** The tool's name. */
  tool: string;
  outcome: McpToolCallOutcome;
  /** Milliseconds from argument parsing to the result, by the server's `now` clock. */
  durationMs: number;
  /** The thrown or validation error, for `tool-error` and `internal-error`. */
  error?: unknown;
}

/** What a tool call needs from the server. */
export interface CallToolContext {
  now: () => number;
  onToolCall: ((event: McpToolCallEvent) => void) | undefined;
}

const GENERIC_TOOL_FAILURE = "The tool failed to complete the request.";

function exposedMessage(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  if (!("expose" in error) || error.expose !== true) return undefined;
  return "message" in error && typeof error.message === "string" && error.message !== ""
    ? error.message
    : undefined;
}

function textResult(text: string): McpCallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

function report(context: CallToolContext, event: McpToolCallEvent): void {
  try {
    context.onToolCall?.(event);
  } catch {
    // An observer must not change the answer.
  }
}

/**
 * Run one registered tool: parse the arguments with its input schema (a
 * failure is an `isError` result the model can correct), call the handler
 * (a throw is an `isError` result with a generic message unless the error has
 * `expose: true`), then parse the output with its output schema. An output
 * that fails its schema, is not an object, or cannot be rendered is a server
 * bug and throws `INTERNAL_ERROR` (JSON-RPC -32603).
 */
export async function callTool(
  registered: RegisteredTool,
  args: JsonObject,
  context: CallToolContext,
): Promise<McpCallToolResult> {
  const { tool } = registered;
  const started = context.now();
  const finish = (outcome: McpToolCallOutcome, error?: unknown): void =>
    report(context, {
      tool: tool.name,
      outcome,
      durationMs: context.now() - started,
      ...(error === undefined ? {} : { error }),
    });

  const input = tool.inputSchema.safeParse(args);
  if (!input.success) {
    finish("invalid-arguments", input.error);
    return textResult(`Invalid arguments for tool ${tool.name}: ${formatIssues(input.error)}`);
  }

  let raw: unknown;
  try {
    raw = await tool.handler(input.data);
  } catch (error) {
    finish("tool-error", error);
    return textResult(exposedMessage(error) ?? GENERIC_TOOL_FAILURE);
  }

  try {
    const output = tool.outputSchema.safeParse(raw);
    if (!output.success) throw output.error;
    const structured: unknown = output.data;
    if (!isJsonObject(structured)) throw new TypeError("The tool output is not an object.");
    const text = tool.toText === undefined ? JSON.stringify(structured) : tool.toText(output.data);
    if (typeof text !== "string") throw new TypeError("The tool's text rendering is not a string.");
    finish("success");
    return { content: [{ type: "text", text }], structuredContent: structured };
  } catch (error) {
    finish("internal-error", error);
    throw new McpServerError("INTERNAL_ERROR", {
      message: `Tool ${tool.name} produced an invalid result.`,
      cause: error,
    });
  }
}
