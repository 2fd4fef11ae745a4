import type {
  ChangeFrame,
  ErrorFrame,
  LiveQueryFrame,
  LiveRow,
  SubscribeFrame,
} from "@svc/schema/live-frames";
import { SvcError } from "./errors.js";

// The live wire format is defined once, in @svc/schema/live-frames, for the
// server and this client alike: a module of its own that imports nothing (no
// zod, nothing of Node), so it costs a browser bundle only its few lines,
// where depending on @svc/sync would install a Node server's packages. What
// stays here is the client's own: errors as `SvcError`, and subscriptions as
// the transports see them.

export {
  type ChangeFrame,
  type LiveRow,
  parseServerFrame,
  RESYNC_REQUIRED,
  type ServerFrame,
  type SnapshotFrame,
  WS_CLOSE_CODES,
  WS_PROTOCOL,
} from "@svc/schema/live-frames";

/** The `SvcError` of an `error` frame (status 0: no HTTP answer carried it). */
export function errorOfFrame(frame: ErrorFrame): SvcError {
  const { code, message } = frame.error;
  return new SvcError(code, typeof message === "string" ? message : code, { status: 0 });
}

/** What an entity subscription asks for (the `subscribe` frame without id and cursor). */
export interface EntityRequest {
  readonly entity: string;
  readonly where?: Readonly<Record<string, unknown>>;
  readonly orderBy?: { readonly field: string; readonly direction: "asc" | "desc" };
  readonly limit?: number;
}

/**
 * An entity subscription as the transports see it: what to ask for, the
 * cursor of the last frame applied (resume from it), and where frames go.
 */
export interface EntityTarget {
  readonly kind: "entity";
  readonly request: EntityRequest;
  /** The cursor of the last snapshot or change applied; null: load a snapshot. */
  readonly cursor: string | null;
  snapshot(rows: readonly LiveRow[], cursor: string): void;
  change(frame: ChangeFrame): void;
  /** The server must be asked for a fresh snapshot (RESYNC_REQUIRED); rows stay until it comes. */
  resync(): void;
  /** A failure that ends the subscription (the server closed it). */
  fail(error: SvcError): void;
  /** A failure the client outlives (the caller was refused; a sign-in starts over). */
  warn(error: SvcError): void;
}

/** A live query function subscription, as the WebSocket transport sees it. */
export interface QueryTarget {
  readonly kind: "query";
  readonly query: string;
  readonly args: unknown;
  result(value: unknown, cursor: string): void;
  fail(error: SvcError): void;
  warn(error: SvcError): void;
}

/** Either kind of subscription. */
export type LiveTarget = EntityTarget | QueryTarget;

/** The `subscribe` frame for `target` under the wire id `id`. */
export function subscribeFrame(id: string, target: LiveTarget): SubscribeFrame | LiveQueryFrame {
  if (target.kind === "query") {
    return { type: "subscribe", id, query: target.query, args: target.args ?? {} };
  }
  const { entity, where, orderBy, limit } = target.request;
  return {
    type: "subscribe",
    id,
    entity,
    ...(where !== undefined && { where }),
    ...(orderBy !== undefined && { orderBy }),
    ...(limit !== undefined && { limit }),
    ...(target.cursor !== null && { since: target.cursor }),
  };
}
