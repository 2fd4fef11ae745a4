import { SvcError } from "./errors.js";

// The live transports' wire format, as @svc/sync's `ws-frames.ts` defines it
// (the client imports no package, so the shapes are restated here and the
// server's frames are checked by hand at the edge).

/** A row as the live transports send it: the id plus the entity's fields. */
export type LiveRow = { readonly id: string } & Readonly<Record<string, unknown>>;

/** `{type: "snapshot"}`: the rows the caller may read now and the cursor changes follow. */
export interface SnapshotFrame {
  readonly type: "snapshot";
  readonly id: string;
  readonly rows: readonly LiveRow[];
  readonly cursor: string;
}

/** `{type: "change"}`: one committed change; `remove`: the row left this view. */
export interface ChangeFrame {
  readonly type: "change";
  readonly id: string;
  readonly op: "insert" | "update" | "delete" | "remove";
  readonly row?: LiveRow;
  readonly rowId: string;
  readonly cursor: string;
}

/** `{type: "result"}`: a live query's value. */
export interface ResultFrame {
  readonly type: "result";
  readonly id: string;
  readonly value: unknown;
  readonly cursor: string;
}

/** `{type: "error"}`: with an id, that subscription failed (and is closed). */
export interface ErrorFrame {
  readonly type: "error";
  readonly id?: string;
  readonly error: { readonly code: string; readonly message: string };
}

/** Every frame a server sends. */
export type ServerFrame =
  | SnapshotFrame
  | ChangeFrame
  | ResultFrame
  | ErrorFrame
  | { readonly type: "pong" };

/** The code a subscription gets when its cursor can no longer be served: reload. */
export const RESYNC_REQUIRED = "RESYNC_REQUIRED";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isRow(value: unknown): value is LiveRow {
  return isRecord(value) && typeof value.id === "string";
}

const CHANGE_OPS: ReadonlySet<unknown> = new Set(["insert", "update", "delete", "remove"]);

/** The frame `text` holds, or null for anything this client does not understand. */
export function parseServerFrame(text: string): ServerFrame | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(value)) return null;
  const { type, id, cursor } = value;
  switch (type) {
    case "snapshot":
      return typeof id === "string" &&
        typeof cursor === "string" &&
        Array.isArray(value.rows) &&
        value.rows.every(isRow)
        ? (value as unknown as SnapshotFrame)
        : null;
    case "change":
      return typeof id === "string" &&
        typeof cursor === "string" &&
        typeof value.rowId === "string" &&
        CHANGE_OPS.has(value.op) &&
        (value.row === undefined || isRow(value.row))
        ? (value as unknown as ChangeFrame)
        : null;
    case "result":
      return typeof id === "string" && typeof cursor === "string" && "value" in value
        ? (value as unknown as ResultFrame)
        : null;
    case "error":
      return (id === undefined || typeof id === "string") &&
        isRecord(value.error) &&
        typeof value.error.code === "string"
        ? (value as unknown as ErrorFrame)
        : null;
    case "pong":
      return { type: "pong" };
    default:
      return null;
  }
}

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
export function subscribeFrame(id: string, target: LiveTarget): Record<string, unknown> {
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
