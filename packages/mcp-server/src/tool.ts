import { type ZodType, z } from "zod";
import { McpServerError } from "./errors.js";

/**
 * One tool of the registry. Plain objects of this shape are accepted
 * structurally, so a package that provides tools needs no import of this one.
 * `handler` receives the input already parsed by `inputSchema`; its result is
 * parsed by `outputSchema` and sent as `structuredContent`, and as text made
 * by `toText` (default: the JSON of the output).
 *
 * @example
 * const echo: McpTool<{ text: string }, { text: string }> = {
 *   name: "echo",
 *   description: "Returns its input.",
 *   inputSchema: z.object({ text: z.string() }),
 *   outputSchema: z.object({ text: z.string() }),
 *   handler: (input) => input,
 * };
 */
export interface McpTool<TIn = unknown, TOut = unknown> {
  /** Name clients call the tool by: 1-128 of `A-Z a-z 0-9 _ - .`, unique in the registry. */
  readonly name: string;
  /** Human-readable name for user interfaces. */
  readonly title?: string;
  /** What the tool does and when to use it; the model reads this. */
  readonly description: string;
  /** zod schema of the arguments; must describe an object. */
  readonly inputSchema: ZodType<TIn>;
  /** zod schema of the result; must describe an object. */
  readonly outputSchema: ZodType<TOut>;
  /** Computes the result. Throw an error with `expose: true` to show its message to the client. */
  handler(input: TIn): Promise<TOut> | TOut;
  /** Text rendering of the output for the `content` block; default `JSON.stringify(output)`. */
  toText?(output: TOut): string;
}

/**
 * Identity helper that infers a tool's input and output types from its
 * schemas, so `handler` and `toText` are checked without annotations.
 *
 * @example
 * const add = defineMcpTool({
 *   name: "add",
 *   description: "Adds two numbers.",
 *   inputSchema: z.object({ a: z.number(), b: z.number() }),
 *   outputSchema: z.object({ sum: z.number() }),
 *   handler: ({ a, b }) => ({ sum: a + b }),
 * });
 */
export function defineMcpTool<TIn, TOut>(tool: McpTool<TIn, TOut>): McpTool<TIn, TOut> {
  return tool;
}

/** A JSON Schema generated from zod that describes an object. */
export type McpObjectJsonSchema = { readonly type: "object" } & Readonly<Record<string, unknown>>;

/** How a tool is listed by `tools/list`. */
export interface McpToolDescriptor {
  name: string;
  title?: string;
  description: string;
  inputSchema: McpObjectJsonSchema;
  outputSchema: McpObjectJsonSchema;
}

/** A tool with its listing computed once, at server creation. */
export interface RegisteredTool {
  readonly tool: McpTool;
  readonly descriptor: McpToolDescriptor;
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

function objectJsonSchema(
  tool: McpTool,
  which: "inputSchema" | "outputSchema",
): McpObjectJsonSchema {
  let schema: Record<string, unknown>;
  try {
    schema = z.toJSONSchema(tool[which], { io: which === "inputSchema" ? "input" : "output" });
  } catch (cause) {
    throw new McpServerError("INVALID_TOOL", {
      message: `The ${which} of tool ${tool.name} cannot be expressed as JSON Schema.`,
      cause,
    });
  }
  const { type } = schema;
  if (type !== "object") {
    throw new McpServerError("INVALID_TOOL", {
      message: `The ${which} of tool ${tool.name} must describe an object.`,
    });
  }
  return { ...schema, type };
}

/**
 * Check the tools and compute their `tools/list` descriptors (JSON Schema
 * generated from the zod schemas with `z.toJSONSchema`). Throws
 * `INVALID_TOOL` or `DUPLICATE_TOOL`.
 */
export function registerTools(tools: readonly McpTool[]): ReadonlyMap<string, RegisteredTool> {
  const registry = new Map<string, RegisteredTool>();
  for (const tool of tools) {
    if (typeof tool.name !== "string" || !TOOL_NAME.test(tool.name)) {
      throw new McpServerError("INVALID_TOOL", {
        message: "A tool name must be 1-128 characters of A-Z, a-z, 0-9, _, - and '.'.",
      });
    }
    if (registry.has(tool.name)) {
      throw new McpServerError("DUPLICATE_TOOL", {
        message: `Two tools are named ${tool.name}.`,
      });
    }
    if (typeof tool.handler !== "function") {
      throw new McpServerError("INVALID_TOOL", {
        message: `Tool ${tool.name} has no handler function.`,
      });
    }
    const descriptor: McpToolDescriptor = {
      name: tool.name,
      ...(tool.title === undefined ? {} : { title: tool.title }),
      description: tool.description,
      inputSchema: objectJsonSchema(tool, "inputSchema"),
      outputSchema: objectJsonSchema(tool, "outputSchema"),
    };
    registry.set(tool.name, { tool, descriptor });
  }
  return registry;
}
