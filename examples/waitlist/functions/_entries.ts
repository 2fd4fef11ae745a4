import type { QueryContext } from "@svc/functions";

/** The longest note a person may leave when joining. */
export const MAX_NOTE_CHARS = 280;

/** A stored row, as `ctx.db` answers it. */
type Row = NonNullable<Awaited<ReturnType<QueryContext["db"]["get"]>>>;

/** A waitlist entry as the functions answer it. */
export interface EntryView {
  readonly id: string;
  readonly email: string;
  readonly note: string | null;
  readonly status: "waiting" | "invited";
  readonly position: number;
  readonly createdAt: string;
  readonly invitedAt: string | null;
}

/** The JSON the functions answer for one `WaitlistEntry` row. */
export function toEntryView(row: Row): EntryView {
  return {
    id: row.id,
    email: String(row.email),
    note: typeof row.note === "string" ? row.note : null,
    status: row.status === "invited" ? "invited" : "waiting",
    position: Number(row.position),
    createdAt: String(row.createdAt),
    invitedAt: typeof row.invitedAt === "string" ? row.invitedAt : null,
  };
}
