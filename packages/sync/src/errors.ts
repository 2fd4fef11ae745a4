import { commonError, commonErrors, defineErrors, type ErrorTable } from "@svc/schema";

/**
 * Every failure @svc/sync reports to a client, keyed by a stable code, with
 * its status and fixed message. `RESYNC_REQUIRED` (410) means the cursor can
 * no longer be served (from the future, past retention, or from before a
 * reset): the client reloads a snapshot and pulls from the cursor it gets.
 * The WebSocket transport sends the same codes in `error` frames.
 */
export const syncErrorCodes = {
  ...commonError("AUTH_REQUIRED", "Live subscriptions need a signed-in user or the admin token."),
  ...commonErrors("POLICY_DENIED", "INTERNAL_ERROR"),
  INVALID_FRAME: {
    status: 400,
    message:
      "The frame is not a valid client frame (subscribe to an entity or a query, unsubscribe or ping; see @svc/sync's frame types).",
  },
  ...commonErrors("ENTITY_NOT_FOUND"),
  SUBSCRIPTION_EXISTS: {
    status: 409,
    message: "A subscription with this id is already open on this connection.",
  },
  NOT_A_QUERY: {
    status: 400,
    message: "Only query functions can be subscribed to (not mutations or actions).",
  },
  LIVE_QUERIES_UNAVAILABLE: {
    status: 501,
    message: "This server does not run live query functions.",
  },
  TOO_MANY_SUBSCRIPTIONS: {
    status: 429,
    message:
      "This connection has as many open subscriptions as it may; unsubscribe from one first.",
  },
  ...commonError(
    "INVALID_QUERY",
    "since must be a cursor this API returned (a decimal string) and limit an integer from 1 to 1000.",
  ),
  ORIGIN_NOT_TRUSTED: {
    status: 403,
    message: "The page's origin is not trusted to open live subscriptions.",
  },
  SERVICE_UNAVAILABLE: { status: 503, message: "The server is shutting down; reconnect." },
  CREDENTIAL_REVOKED: {
    status: 401,
    message:
      "The credential of this live connection was revoked or has expired (signed out, key revoked, account deleted); sign in again.",
  },
  TOO_MANY_CONNECTIONS: {
    status: 429,
    message:
      "This user or address holds as many open live connections as it may; close one and try again later.",
  },
  SNAPSHOT_TOO_LARGE: {
    status: 413,
    message:
      "The snapshot is larger than this server sends in one frame; subscribe with a smaller limit or a narrower where.",
  },
  RESULT_TOO_LARGE: {
    status: 413,
    message:
      "The live query's value is larger than this server sends in one frame; return less (a page, a count).",
  },
  RESYNC_REQUIRED: {
    status: 410,
    message:
      "This cursor can no longer be served (it is newer than the log, older than its retention, or from before a reset); reload and pull from the new cursor.",
  },
} as const satisfies ErrorTable;

/** A stable @svc/sync error code. */
export type SyncErrorCode = keyof typeof syncErrorCodes;

/**
 * The single error class of @svc/sync; tell cases apart by `code`. Every
 * instance is a wire error (`expose: true`): its message is the table's
 * fixed text (or a precise one given at the throw), safe to send to the client.
 *
 * @example
 * throw new SyncError("RESYNC_REQUIRED");
 */
export class SyncError extends defineErrors("SyncError", syncErrorCodes) {}
