import type { OperatorAuditEvent, OperatorAuditKind } from "@svc/auth-core";
import type { EntityDef, FieldDef } from "@svc/schema";
import type { Row } from "@svc/store";
import type { Request, Response } from "express";
import { sessionOf } from "./studio-http.js";

/** Longest value text an audit event keeps of one field (before or after a change). */
const MAX_VALUE_CHARS = 80;

/** Words of a field name that mark its values as secret: `pin`, `otp`, `hash`, `key`, ... */
const SECRET_WORDS = new Set([
  "pin",
  "otp",
  "totp",
  "hash",
  "salt",
  "key",
  "keys",
  "ssn",
  "cvv",
  "cvc",
  "iban",
]);

/** Parts of a field name that mark its values as secret wherever they stand. */
const SECRET_PARTS = /pass(word|wd|phrase)|secret|token|credential|apikey|privatekey|cardnumber/;

/**
 * Whether a field's values are kept out of audit events by its name:
 * passwords, secrets, tokens, keys, hashes, one-time codes, PINs, card
 * numbers (`passwordHash`, `api_key`, `pinCode`; not `spinner`).
 */
export function isSecretLooking(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== "");
  return words.some((word) => SECRET_WORDS.has(word)) || SECRET_PARTS.test(words.join(""));
}

/**
 * A value as an audit event keeps it: scalars as (shortened) text, json
 * and files only as a marker, secret-looking fields never.
 */
function auditValue(field: FieldDef, value: unknown): string | number | boolean | null {
  if (isSecretLooking(field.name)) return "[redacted]";
  if (value === null || value === undefined) return null;
  if (field.type === "json") return "[json]";
  if (field.type === "file") return "[file]";
  if (typeof value === "number" || typeof value === "boolean") return value;
  const text = String(value);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
}

/** An operator audit event of the signed-in studio: the studio as the actor, its session, the client address. */
export function studioEvent(
  req: Request,
  res: Response,
  kind: OperatorAuditKind,
  data: Readonly<Record<string, unknown>>,
): OperatorAuditEvent {
  return {
    kind,
    data: { actor: "studio", studio_session: sessionOf(res).ref, ...data },
    ...(req.ip !== undefined && { ip: req.ip }),
  };
}

/**
 * `StudioEdit` of a row: the action, the entity, the row's id and the
 * fields written; for an update also each field's value before and after
 * (shortened, json as a marker, secret-looking fields redacted).
 */
export function editEvent(
  req: Request,
  res: Response,
  input: {
    readonly action: "insert" | "update" | "delete";
    readonly entity: EntityDef;
    readonly rowId: string;
    /** The fields written (insert and update). */
    readonly written?: Readonly<Record<string, unknown>>;
    /** The row before an update. */
    readonly before?: Row;
  },
): OperatorAuditEvent {
  const { action, entity, rowId, written = {}, before } = input;
  const fields = entity.fields.filter((field) => Object.hasOwn(written, field.name));
  const data: Record<string, unknown> = {
    action,
    entity: entity.name,
    row_id: rowId,
    ...(action !== "delete" && { fields: fields.map((field) => field.name) }),
  };
  if (action === "update" && before !== undefined) {
    data.changes = Object.fromEntries(
      fields.map((field) => [
        field.name,
        {
          from: auditValue(field, before[field.name]),
          to: auditValue(field, written[field.name]),
        },
      ]),
    );
  }
  return studioEvent(req, res, "StudioEdit", data);
}
