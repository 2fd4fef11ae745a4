import { randomBytes } from "node:crypto";
import type { Readable } from "node:stream";
import type { AuthContext } from "@svc/schema";
import type { Store, StoreDatabase } from "@svc/store";
import type { Kysely } from "kysely";
import { z } from "zod";
import { type BlobStore, isBlobKey, type UploadTarget } from "./blob-store.js";
import { checkContentType } from "./content-type.js";
import { FilesError } from "./errors.js";
import { DEFAULT_FILES_URL_PREFIX, type LocalBlobStore } from "./local-blob-store.js";
import { FILES_TABLE, type FilesTable, type FilesTables } from "./tables.js";

/** `SVC_FILES_MAX_BYTES`'s default: 50 MiB. */
export const DEFAULT_FILES_MAX_BYTES = 50 * 1024 * 1024;
/** How long an upload URL is valid by default: 15 minutes. */
export const DEFAULT_UPLOAD_TTL_SECS = 15 * 60;
/** How long a signed read URL (s3) is valid: 5 minutes. */
export const READ_URL_TTL_SECS = 5 * 60;

/** Options of `createFiles`. */
export interface CreateFilesOptions {
  readonly store: Store;
  /** The application database (the one `store` uses; its migration created `svc_files`). */
  readonly db: StoreDatabase["db"];
  readonly blobs: BlobStore | LocalBlobStore;
  /** Largest file accepted. Default 50 MiB (`SVC_FILES_MAX_BYTES`). */
  readonly maxBytes?: number;
  /** Accepted content types (`image/png` or `image/*`). Default any valid MIME type. */
  readonly allowedContentTypes?: readonly string[];
  /** Seconds an upload URL is valid. Default 900. */
  readonly uploadTtlSecs?: number;
  /** Where the router serves files (`SVC_FILES_URL_PREFIX`). Default `/api/files`. */
  readonly urlPrefix?: string;
  /** Unix ms. Default `Date.now`. */
  readonly now?: () => number;
}

/** A file as the API answers it. */
export interface FileInfo {
  readonly id: string;
  readonly name: string | null;
  readonly size: number;
  readonly content_type: string;
  readonly status: "pending" | "ready";
  readonly owner_id: string;
  /** Where to GET the bytes (local: svc's route; s3: svc's route, which redirects). */
  readonly url: string;
}

/** What `init` answers: the file id and where to PUT its bytes. */
export interface InitUploadResult {
  readonly id: string;
  readonly upload: UploadTarget;
  /** ISO 8601. */
  readonly expires_at: string;
}

/** Body of `POST /api/files`. */
export const initUploadInput = z.strictObject({
  name: z.string().min(1).max(255).optional(),
  size: z.number().int().min(0),
  contentType: z.string(),
});

/** The files core: uploads, confirmation, policy-checked reads and deletes. */
export interface Files {
  readonly blobs: BlobStore;
  readonly urlPrefix: string;
  readonly maxBytes: number;
  init(auth: AuthContext, input: unknown): Promise<InitUploadResult>;
  /** Streams a local upload (svc's own PUT route); the token is single-use. */
  receive(
    id: string,
    token: unknown,
    body: Readable,
    declaredLength: number | undefined,
  ): Promise<void>;
  confirm(auth: AuthContext, id: string): Promise<FileInfo>;
  /** The file's row when `auth` may read it (owner, admin, or reader of a referencing row). */
  get(auth: AuthContext, id: string): Promise<FileInfo>;
  /** The bytes or a redirect, after the same check as `get`. */
  read(
    auth: AuthContext,
    id: string,
  ): Promise<{ readonly file: FileInfo; readonly body: Awaited<ReturnType<BlobStore["read"]>> }>;
  /** Deletes object and row: the owner or the admin. */
  delete(auth: AuthContext, id: string): Promise<void>;
  /** Stops checking writes of `file` fields. */
  close(): void;
}

type Row = FilesTable;

function requireUser(auth: AuthContext): void {
  if (auth.userId === null && !auth.isAdmin) throw new FilesError("AUTH_REQUIRED");
}

/**
 * Creates the files core and registers the store's file-field check: a
 * write may put a file id into a `file` field only when the file is ready
 * and the writer owns it (or is the admin); the first attachment is
 * recorded. Mount `createFilesRouter(files)` from `@svc/files/express`.
 *
 * @example
 * const files = createFiles({ store, db, blobs: createLocalBlobStore({ dir, urlPrefix }) });
 */
export function createFiles(options: CreateFilesOptions): Files {
  const db = options.db as unknown as Kysely<FilesTables>;
  const { store, blobs } = options;
  const now = options.now ?? Date.now;
  const maxBytes = options.maxBytes ?? DEFAULT_FILES_MAX_BYTES;
  const ttl = options.uploadTtlSecs ?? DEFAULT_UPLOAD_TTL_SECS;
  const prefix = options.urlPrefix ?? DEFAULT_FILES_URL_PREFIX;
  const fileFields = store.manifest.entities.flatMap((entity) =>
    entity.fields
      .filter((field) => field.type === "file")
      .map((field) => ({ entity: entity.name, field: field.name })),
  );

  const toInfo = (row: Row): FileInfo => ({
    id: row.id,
    name: row.name,
    size: Number(row.size),
    content_type: row.content_type,
    status: row.status === "ready" ? "ready" : "pending",
    owner_id: row.owner_id,
    url: `${prefix}/${row.id}`,
  });
  const find = async (id: string): Promise<Row | undefined> =>
    isBlobKey(id)
      ? await db.selectFrom(FILES_TABLE).selectAll().where("id", "=", id).executeTakeFirst()
      : undefined;

  async function mayRead(auth: AuthContext, row: Row): Promise<boolean> {
    if (auth.isAdmin || (auth.userId !== null && auth.userId === row.owner_id)) return true;
    if (row.status !== "ready") return false;
    const reader = store.reader(auth);
    for (const { entity, field } of fileFields) {
      const page = await reader.query(entity, { where: { [field]: row.id }, limit: 1 });
      if (page.rows.length > 0) return true;
    }
    return false;
  }

  const unregister = store.onFileReference(async ({ fileId, entity, field, auth, db: trx }) => {
    const tx = trx as unknown as Kysely<FilesTables>;
    const row = await tx
      .selectFrom(FILES_TABLE)
      .selectAll()
      .where("id", "=", fileId)
      .executeTakeFirst();
    if (row === undefined) return `${entity}.${field} names a file that does not exist.`;
    if (row.status !== "ready")
      return `${entity}.${field} names a file whose upload is not confirmed.`;
    if (!auth.isAdmin && auth.userId !== row.owner_id) {
      return `${entity}.${field} names a file the writer does not own.`;
    }
    if (row.entity === null) {
      await tx.updateTable(FILES_TABLE).set({ entity, field }).where("id", "=", fileId).execute();
    }
    return null;
  });

  return {
    blobs,
    urlPrefix: prefix,
    maxBytes,
    async init(auth, input) {
      requireUser(auth);
      const parsed = initUploadInput.safeParse(input);
      if (!parsed.success) {
        throw new FilesError("INVALID_FILE_REQUEST", {
          message: "The body must be {name?, size, contentType} with size a whole number of bytes.",
        });
      }
      const { size, name } = parsed.data;
      if (size > maxBytes) {
        throw new FilesError("FILE_TOO_LARGE", {
          message: `The file is larger than ${maxBytes} bytes.`,
        });
      }
      const contentType = checkContentType(parsed.data.contentType, options.allowedContentTypes);
      const id = randomBytes(20).toString("hex");
      const createdAt = now();
      const expiresAt = createdAt + ttl * 1000;
      const upload = await blobs.createUpload({ key: id, size, contentType, expiresIn: ttl });
      await db
        .insertInto(FILES_TABLE)
        .values({
          id,
          // The admin token without a user owns its uploads as "admin".
          owner_id: auth.userId ?? "admin",
          name: name ?? null,
          size,
          content_type: contentType,
          status: "pending",
          created_at: createdAt,
          expires_at: expiresAt,
          entity: null,
          field: null,
        })
        .execute();
      return { id, upload, expires_at: new Date(expiresAt).toISOString() };
    },
    async receive(id, token, body, declaredLength) {
      if (!("verifyToken" in blobs)) {
        throw new FilesError("FILES_NOT_CONFIGURED", {
          message: "This server stores files in S3: PUT the bytes to the presigned upload URL.",
        });
      }
      if (!isBlobKey(id)) throw new FilesError("FILE_NOT_FOUND");
      blobs.verifyToken(id, token);
      const row = await find(id);
      if (row === undefined) throw new FilesError("FILE_NOT_FOUND");
      const declared = Number(row.size);
      if (declaredLength !== undefined && declaredLength > declared) {
        throw new FilesError("FILE_TOO_LARGE", {
          message: `The upload is larger than the ${declared} bytes declared.`,
        });
      }
      // The claim makes the token single-use: only one request moves the
      // row from pending to uploading.
      const claimed = await db
        .updateTable(FILES_TABLE)
        .set({ status: "uploading" })
        .where("id", "=", id)
        .where("status", "=", "pending")
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) throw new FilesError("UPLOAD_EXPIRED");
      try {
        const written = await blobs.write(id, body, { maxBytes: declared });
        if (written !== declared) {
          await blobs.delete(id);
          throw new FilesError("UPLOAD_INCOMPLETE", {
            message: `The upload had ${written} bytes, not the ${declared} declared.`,
          });
        }
      } catch (error) {
        await db.updateTable(FILES_TABLE).set({ status: "pending" }).where("id", "=", id).execute();
        throw error;
      }
      await db.updateTable(FILES_TABLE).set({ status: "uploaded" }).where("id", "=", id).execute();
    },
    async confirm(auth, id) {
      requireUser(auth);
      const row = await find(id);
      if (row === undefined || !(auth.isAdmin || auth.userId === row.owner_id)) {
        throw new FilesError("FILE_NOT_FOUND");
      }
      if (row.status === "ready") return toInfo(row);
      if (row.status === "pending" && now() > Number(row.expires_at) && blobs.kind === "local") {
        throw new FilesError("UPLOAD_EXPIRED");
      }
      const head = await blobs.head(id);
      if (head === null || head.size !== Number(row.size) || row.status === "uploading") {
        throw new FilesError("UPLOAD_INCOMPLETE");
      }
      await db.updateTable(FILES_TABLE).set({ status: "ready" }).where("id", "=", id).execute();
      return toInfo({ ...row, status: "ready" });
    },
    async get(auth, id) {
      const row = await find(id);
      if (row === undefined || !(await mayRead(auth, row))) throw new FilesError("FILE_NOT_FOUND");
      return toInfo(row);
    },
    async read(auth, id) {
      const row = await find(id);
      if (row === undefined || row.status !== "ready" || !(await mayRead(auth, row))) {
        throw new FilesError("FILE_NOT_FOUND");
      }
      const body = await blobs.read(id, { expiresIn: READ_URL_TTL_SECS });
      if (body === null) throw new FilesError("FILE_NOT_FOUND");
      return { file: toInfo(row), body };
    },
    async delete(auth, id) {
      requireUser(auth);
      const row = await find(id);
      if (row === undefined || !(await mayRead(auth, row))) throw new FilesError("FILE_NOT_FOUND");
      if (!auth.isAdmin && auth.userId !== row.owner_id) throw new FilesError("POLICY_DENIED");
      await blobs.delete(id);
      await db.deleteFrom(FILES_TABLE).where("id", "=", id).execute();
    },
    close: unregister,
  };
}
