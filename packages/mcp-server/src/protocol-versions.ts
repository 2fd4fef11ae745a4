/**
 * The MCP protocol revisions this server speaks through the `initialize`
 * handshake, newest first.
 */
export const handshakeProtocolVersions = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
] as const;

/** The stateless MCP revision (SEP-2575) whose `server/discover` method is served. */
export const STATELESS_PROTOCOL_VERSION = "2026-07-28";

/**
 * Every value accepted in the `MCP-Protocol-Version` header and advertised by
 * `server/discover` as `supportedVersions`, newest first.
 */
export const supportedProtocolVersions = [
  STATELESS_PROTOCOL_VERSION,
  ...handshakeProtocolVersions,
] as const;

/** A protocol revision this server accepts. */
export type McpProtocolVersion = (typeof supportedProtocolVersions)[number];

/**
 * The revision assumed for a request without an `MCP-Protocol-Version`
 * header, as the Streamable HTTP transport prescribes for backwards
 * compatibility.
 */
export const DEFAULT_PROTOCOL_VERSION = "2025-03-26";

/** True when `value` is a protocol revision this server accepts. */
export function isSupportedProtocolVersion(value: unknown): value is McpProtocolVersion {
  return supportedProtocolVersions.some((version) => version === value);
}

/**
 * The version `initialize` answers: the client's requested version when it
 * is one of the handshake revisions, otherwise the newest handshake revision
 * (the client then decides whether it can continue).
 *
 * @example
 * negotiateProtocolVersion("2025-06-18"); // "2025-06-18"
 * negotiateProtocolVersion("1999-01-01"); // "2025-11-25"
 */
export function negotiateProtocolVersion(requested: unknown): string {
  const match = handshakeProtocolVersions.find((version) => version === requested);
  return match ?? handshakeProtocolVersions[0];
}
