import { z } from "zod";
import {
  jsonRpcErrorResponseSchema,
  jsonRpcRequestSchema,
  jsonRpcResponseSchema,
} from "./mcp-schemas.js";
import { type AgentOperation, agentOperations } from "./operations.js";
import {
  docPageEntrySchema,
  docsListSchema,
  docsSearchResultSchema,
  errorEnvelopeSchema,
  templateEntrySchema,
  templateListSchema,
} from "./schemas.js";

/** A JSON Schema object as it appears in the document. */
export type JSONSchemaObject = Record<string, unknown>;

/** One parameter of an operation. */
export interface OpenAPIParameter {
  name: string;
  in: "query" | "header";
  required: boolean;
  description?: string;
  schema: JSONSchemaObject;
}

/** One response of an operation (a `$ref` or inline). */
export type OpenAPIResponse = { $ref: string } | JSONSchemaObject;

/** One operation of the document. */
export interface OpenAPIOperation {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  parameters: OpenAPIParameter[];
  requestBody?: JSONSchemaObject;
  responses: Record<string, OpenAPIResponse>;
}

/** The OpenAPI 3.1 description of the agent API (and the MCP endpoint beside it). */
export type OpenAPIDocument = {
  openapi: "3.1.0";
  info: {
    title: string;
    version: string;
    summary: string;
    description: string;
    license: { name: "MIT"; identifier: "MIT" };
  };
  servers?: { url: string }[];
  tags: { name: string; description: string }[];
  paths: Record<string, Partial<Record<"get" | "post", OpenAPIOperation>>>;
  components: {
    schemas: Record<string, JSONSchemaObject>;
    headers: Record<string, JSONSchemaObject>;
    responses: Record<string, JSONSchemaObject>;
  };
};

const COMPONENT_URI = (id: string): string => `#/components/schemas/${id}`;

function clean(schema: JSONSchemaObject): JSONSchemaObject {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

interface Components {
  schemas: Record<string, JSONSchemaObject>;
  /** The component id of a response schema, when it has one. */
  idOf(schema: z.ZodType): string | undefined;
}

function buildComponents(): Components {
  const output = z.registry<{ id: string }>();
  output.add(docPageEntrySchema, { id: "DocPageEntry" });
  output.add(templateEntrySchema, { id: "TemplateEntry" });
  output.add(docsListSchema, { id: "DocsList" });
  output.add(docsSearchResultSchema, { id: "DocsSearchResult" });
  output.add(templateListSchema, { id: "TemplateList" });
  output.add(errorEnvelopeSchema, { id: "ErrorEnvelope" });
  output.add(jsonRpcResponseSchema, { id: "JsonRpcResponse" });
  output.add(jsonRpcErrorResponseSchema, { id: "JsonRpcErrorResponse" });
  // Request bodies are described as accepted (input), responses as sent.
  const input = z.registry<{ id: string }>();
  input.add(jsonRpcRequestSchema, { id: "JsonRpcRequest" });

  const generated = {
    ...z.toJSONSchema(output, { uri: COMPONENT_URI }).schemas,
    ...z.toJSONSchema(input, { uri: COMPONENT_URI, io: "input" }).schemas,
  };
  return {
    schemas: Object.fromEntries(
      Object.entries(generated).map(([id, schema]) => [id, clean(schema)]),
    ),
    idOf: (schema) => output.get(schema)?.id,
  };
}

const ref = (kind: "schemas" | "headers" | "responses", id: string): { $ref: string } => ({
  $ref: `#/components/${kind}/${id}`,
});

const rateLimitHeaders = {
  RateLimit: ref("headers", "RateLimit"),
  "RateLimit-Policy": ref("headers", "RateLimitPolicy"),
};

function queryParameters(operation: AgentOperation): OpenAPIParameter[] {
  if (operation.query === undefined) return [];
  const shape: Record<string, z.ZodType> = operation.query.shape;
  return Object.entries(shape).map(([name, schema]) => {
    const { description, ...rest } = clean(z.toJSONSchema(schema, { io: "input" }));
    return {
      name,
      in: "query",
      required: !schema.safeParse(undefined).success,
      ...(typeof description === "string" && { description }),
      schema: rest,
    };
  });
}

function agentOperation(operation: AgentOperation, components: Components): OpenAPIOperation {
  const id = components.idOf(operation.success.schema);
  const schema =
    id === undefined ? clean(z.toJSONSchema(operation.success.schema)) : ref("schemas", id);
  const responses: Record<string, OpenAPIResponse> = {
    "200": {
      description: operation.success.description,
      headers: {
        ETag: ref("headers", "ETag"),
        "Cache-Control": ref("headers", "CacheControl"),
        ...rateLimitHeaders,
      },
      content: { [operation.success.contentType]: { schema } },
    },
    "304": ref("responses", "NotModified"),
  };
  for (const status of operation.errorStatuses) {
    responses[String(status)] = ref("responses", status === 400 ? "BadRequest" : "DocNotFound");
  }
  responses["429"] = ref("responses", "RateLimited");
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    description: operation.description,
    tags: [operation.tag],
    parameters: queryParameters(operation),
    responses,
  };
}

const MCP_DESCRIPTION =
  "Stateless MCP over Streamable HTTP, served beside the agent API: one JSON-RPC 2.0 message per POST with `Accept: application/json, text/event-stream`; no session id is issued or expected. Methods: initialize, server/discover, notifications/initialized, ping, tools/list, tools/call. Tools: search_svc_docs, read_svc_doc, list_svc_templates, get_svc_skill (the search, read, list-templates and skill operations).";

function mcpPath(): Partial<Record<"get" | "post", OpenAPIOperation>> {
  return {
    post: {
      operationId: "callSvcMcp",
      summary: "Send one MCP JSON-RPC message",
      description: MCP_DESCRIPTION,
      tags: ["mcp"],
      parameters: [
        {
          name: "MCP-Protocol-Version",
          in: "header",
          required: false,
          description: "The MCP protocol version; an unsupported value is answered 400.",
          schema: { type: "string" },
        },
      ],
      requestBody: {
        required: true,
        content: { "application/json": { schema: ref("schemas", "JsonRpcRequest") } },
      },
      responses: {
        "200": {
          description: "The JSON-RPC response to a request with an `id`.",
          content: { "application/json": { schema: ref("schemas", "JsonRpcResponse") } },
        },
        "202": { description: "A notification (no `id`) was accepted; no body." },
        "400": {
          description: "Malformed JSON or an unsupported `MCP-Protocol-Version` header.",
          content: { "application/json": { schema: ref("schemas", "JsonRpcErrorResponse") } },
        },
      },
    },
    get: {
      operationId: "openSvcMcpStream",
      summary: "Open a server-initiated MCP stream (not offered)",
      description: "Always answered 405: the server opens no server-initiated stream.",
      tags: ["mcp"],
      parameters: [],
      responses: {
        "405": {
          description: "Method not allowed; the `Allow` header names POST.",
          headers: { Allow: ref("headers", "Allow") },
        },
      },
    },
  };
}

const stringHeader = (description: string): JSONSchemaObject => ({
  description,
  schema: { type: "string" },
});

function envelopeResponse(
  description: string,
  extraHeaders: JSONSchemaObject = {},
): JSONSchemaObject {
  return {
    description,
    headers: { ...rateLimitHeaders, ...extraHeaders },
    content: { "application/json": { schema: ref("schemas", "ErrorEnvelope") } },
  };
}

/** Options of {@link createAgentOpenAPIDocument}. */
export interface AgentOpenAPIOptions {
  /** The public base address, listed as the one server. Default: none (same host). */
  serverURL?: string;
}

/**
 * Builds the OpenAPI 3.1 document of the agent API (version 1.0.0, MIT): the
 * five operations the router serves plus `callSvcMcp` / `openSvcMcpStream`
 * for `/mcp`. Every schema in it is generated from the zod schemas the code
 * validates and answers with.
 *
 * @example
 * const document = createAgentOpenAPIDocument({ serverURL: "https://svc.example.com" });
 * document.paths["/agent/v1/docs/search"]?.get?.operationId; // "searchSvcDocs"
 */
export function createAgentOpenAPIDocument(options: AgentOpenAPIOptions = {}): OpenAPIDocument {
  const components = buildComponents();
  const paths: OpenAPIDocument["paths"] = {};
  for (const operation of agentOperations) {
    paths[operation.path] = { [operation.method]: agentOperation(operation, components) };
  }
  paths["/mcp"] = mcpPath();
  return {
    openapi: "3.1.0",
    info: {
      title: "svc agent API",
      version: "1.0.0",
      summary:
        "Read-only reference API for coding agents: svc docs, templates and authoring guide.",
      description:
        "Public, read-only and unauthenticated. Errors answer `{error:{code,message}}` with a stable code. Requests are rate-limited per client address (see the `RateLimit` and `RateLimit-Policy` headers); documents carry a strong `ETag` and answer 304 to `If-None-Match`.",
      license: { name: "MIT", identifier: "MIT" },
    },
    ...(options.serverURL !== undefined && { servers: [{ url: options.serverURL }] }),
    tags: [
      { name: "docs", description: "Documentation pages and the authoring guide." },
      { name: "templates", description: "Starter templates of the scaffold command." },
      { name: "mcp", description: "The same operations over MCP at `/mcp`." },
    ],
    paths,
    components: {
      schemas: components.schemas,
      headers: {
        ETag: stringHeader("Strong validator of the body; send it back in `If-None-Match`."),
        CacheControl: stringHeader("Caching policy, `public, max-age=300`."),
        RateLimit: stringHeader(
          "Remaining quota of the client (RateLimit header fields, draft 8).",
        ),
        RateLimitPolicy: stringHeader("The quota policy (RateLimit header fields, draft 8)."),
        RetryAfter: stringHeader("Seconds until the quota resets."),
        Allow: stringHeader("The methods the resource allows."),
      },
      responses: {
        NotModified: {
          description: "The `If-None-Match` validator matches; no body.",
          headers: {
            ETag: ref("headers", "ETag"),
            "Cache-Control": ref("headers", "CacheControl"),
          },
        },
        BadRequest: envelopeResponse("A query parameter is missing or invalid (`INVALID_QUERY`)."),
        DocNotFound: envelopeResponse("No documentation page has this path (`DOC_NOT_FOUND`)."),
        RateLimited: envelopeResponse("The client exceeded its quota (`RATE_LIMITED`).", {
          "Retry-After": ref("headers", "RetryAfter"),
        }),
      },
    },
  };
}
