import type { PackageMigrations } from "@svc/store";

/** The name of the files table, in the application database. */
export const FILES_TABLE = "svc_files";

/**
 * One stored file. `id` is also the object key: server-generated, 40
 * lowercase hex characters, never a path from the client. `status` is
 * `pending` until the upload is confirmed (`uploading` while svc itself
 * streams a local upload, `uploaded` once it has), then `ready`.
 */
export interface FilesTable {
  id: string;
  owner_id: string;
  /** The client's display name (not used for storage). */
  name: string | null;
  size: number | string;
  content_type: string;
  status: "pending" | "uploading" | "uploaded" | "ready";
  /** Unix ms. */
  created_at: number | string;
  /** Unix ms after which the upload URL is refused. */
  expires_at: number | string;
  /** Where the file was first attached (a `file` field), once it is. */
  entity: string | null;
  field: string | null;
}

/** The tables @svc/files reads and writes, for a typed kysely instance. */
export interface FilesTables {
  svc_files: FilesTable;
}

/** The files table plan, for `store.migrate({ packages: [filesMigrations()] })`. */
export function filesMigrations(): PackageMigrations {
  return {
    owner: "@svc/files",
    migrations: [
      {
        id: "001_files",
        async up(db) {
          await db.schema
            .createTable(FILES_TABLE)
            .addColumn("id", "text", (col) => col.primaryKey())
            .addColumn("owner_id", "text", (col) => col.notNull())
            .addColumn("name", "text")
            .addColumn("size", "bigint", (col) => col.notNull())
            .addColumn("content_type", "text", (col) => col.notNull())
            .addColumn("status", "text", (col) => col.notNull())
            .addColumn("created_at", "bigint", (col) => col.notNull())
            .addColumn("expires_at", "bigint", (col) => col.notNull())
            .addColumn("entity", "text")
            .addColumn("field", "text")
            .execute();
          await db.schema
            .createIndex(`${FILES_TABLE}_by_owner`)
            .on(FILES_TABLE)
            .column("owner_id")
            .execute();
        },
      },
    ],
  };
}
