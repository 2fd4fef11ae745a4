import { McpServerError } from "./errors.js";
import {
  acceptsJson,
  createHeaderLookup,
  isJsonContentType,
  type McpHttpHeaders,
  normalizeOrigin,
} from "./http-headers.js";
import {
  DEFAULT_PROTOCOL_VERSION,
  isSupportedProtocolVersion,
  supportedProtocolVersions,
} from "./protocol-versions.js";

/** The HTTP-level rules, fixed when the server is created. */
export interface TransportPolicy {
  /** Normalized trusted origins, or "any" for `["*"]`. */
  trustedOrigins: ReadonlySet<string> | "any";
  maxBodyBytes: number;
}

/** What the transport checks look at. */
export interface TransportRequest {
  method: string;
  headers: McpHttpHeaders;
}

/** Either the protocol version the request speaks, or the error to refuse it with. */
export type TransportCheck =
  | { ok: true; protocolVersion: string }
  | { ok: false; error: McpServerError };

function refuse(error: McpServerError): TransportCheck {
  return { ok: false, error };
}

/**
 * The checks made before the body is parsed, in this order: method (405),
 * `Origin` (403; only when the header is present), `Content-Length` (413),
 * `Content-Type` (415; only when present), `Accept` (406; lenient) and
 * `MCP-Protocol-Version` (400; a missing header means 2025-03-26). An
 * `Mcp-Session-Id` header is ignored: the server is stateless.
 */
export function checkTransport(request: TransportRequest, policy: TransportPolicy): TransportCheck {
  if (request.method.toUpperCase() !== "POST") {
    return refuse(new McpServerError("METHOD_NOT_ALLOWED"));
  }
  const header = createHeaderLookup(request.headers);

  const origin = header("origin");
  if (origin !== undefined && policy.trustedOrigins !== "any") {
    const normalized = normalizeOrigin(origin);
    if (normalized === undefined || !policy.trustedOrigins.has(normalized)) {
      return refuse(new McpServerError("FORBIDDEN_ORIGIN"));
    }
  }

  const contentLength = Number(header("content-length") ?? "0");
  if (Number.isFinite(contentLength) && contentLength > policy.maxBodyBytes) {
    return refuse(tooLarge(policy.maxBodyBytes));
  }
  if (!isJsonContentType(header("content-type"))) {
    return refuse(new McpServerError("UNSUPPORTED_MEDIA_TYPE"));
  }
  if (!acceptsJson(header("accept"))) {
    return refuse(new McpServerError("NOT_ACCEPTABLE"));
  }

  const version = header("mcp-protocol-version")?.trim();
  if (version === undefined || version === "") {
    return { ok: true, protocolVersion: DEFAULT_PROTOCOL_VERSION };
  }
  if (!isSupportedProtocolVersion(version)) {
    return refuse(
      new McpServerError("UNSUPPORTED_PROTOCOL_VERSION", {
        message: "Unsupported MCP-Protocol-Version header; use one of the supported versions.",
        data: { supported: [...supportedProtocolVersions] },
      }),
    );
  }
  return { ok: true, protocolVersion: version };
}

/** The 413 error for a body over `maxBodyBytes`. */
export function tooLarge(maxBodyBytes: number): McpServerError {
  return new McpServerError("PAYLOAD_TOO_LARGE", {
    message: `The request body exceeds the limit of ${maxBodyBytes} bytes.`,
  });
}
