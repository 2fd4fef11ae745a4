import type { Kysely } from "kysely";
import { z } from "zod";
import { JobsError } from "./errors.js";
import { type Job, toJob } from "./job.js";
import { JOB_STATUSES, JOBS_TABLE, type JobStatus, type JobsTables } from "./tables.js";

/** Options of `queue.list`. */
export interface JobListOptions {
  /** Only jobs of this status (`dead`: the dead-letter list). Default all. */
  readonly status?: JobStatus | undefined;
  /** Page size, 1..1000. Default 50. */
  readonly limit?: number | undefined;
  /** The previous page's `nextCursor`. */
  readonly cursor?: string | undefined;
}

/** One page of jobs, newest first. */
export interface JobPage {
  readonly jobs: Job[];
  /** Pass as `cursor` for the next page; null on the last one. */
  readonly nextCursor: string | null;
}

const cursorSchema = z.tuple([z.number().int(), z.string().regex(/^[0-9a-f]{32}$/)]);

const listSchema = z.object({
  status: z.enum(JOB_STATUSES as [JobStatus, ...JobStatus[]]).optional(),
  limit: z.number().int().min(1).max(1000).optional(),
  cursor: z.string().max(200).optional(),
});

function decodeCursor(cursor: string): [number, string] {
  try {
    return cursorSchema.parse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
  } catch (cause) {
    throw new JobsError("INVALID_QUERY", { cause });
  }
}

function encodeCursor(job: Job): string {
  return Buffer.from(JSON.stringify([job.createdAt, job.id])).toString("base64url");
}

/** Keyset pages over (created_at, id), newest first. */
export async function listJobs(db: Kysely<JobsTables>, options: JobListOptions): Promise<JobPage> {
  const parsed = listSchema.safeParse(options);
  if (!parsed.success) throw new JobsError("INVALID_QUERY", { cause: parsed.error });
  const { status, cursor } = parsed.data;
  const limit = parsed.data.limit ?? 50;
  let query = db.selectFrom(JOBS_TABLE).selectAll();
  if (status !== undefined) query = query.where("status", "=", status);
  if (cursor !== undefined) {
    const [createdAt, id] = decodeCursor(cursor);
    query = query.where((eb) =>
      eb.or([
        eb("created_at", "<", createdAt),
        eb.and([eb("created_at", "=", createdAt), eb("id", "<", id)]),
      ]),
    );
  }
  const rows = await query
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit + 1)
    .execute();
  const jobs = rows.slice(0, limit).map(toJob);
  const last = jobs.at(-1);
  return {
    jobs,
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor(last) : null,
  };
}

/** Jobs per status (every status present, 0 when none). */
export type JobCounts = Readonly<Record<JobStatus, number>>;

/** One grouped count over the table: how many jobs have each status. */
export async function countJobs(db: Kysely<JobsTables>): Promise<JobCounts> {
  const rows = await db
    .selectFrom(JOBS_TABLE)
    .select((eb) => ["status", eb.fn.countAll<number | string | bigint>().as("count")])
    .groupBy("status")
    .execute();
  const counts = Object.fromEntries(JOB_STATUSES.map((status) => [status, 0])) as Record<
    JobStatus,
    number
  >;
  for (const row of rows) {
    // Postgres answers count(*) as a bigint string.
    if ((JOB_STATUSES as readonly string[]).includes(row.status)) {
      counts[row.status as JobStatus] = Number(row.count);
    }
  }
  return counts;
}
