import type { SvcModule, SvcRuntime } from "@svc/store";
import type { IRouter } from "express";
import { type CreateFilesOptions, createFiles, type Files } from "../create-files.js";
import { filesMigrations } from "../tables.js";
import { createFilesRouter } from "./files-router.js";

/** What `filesModule` needs beside the runtime: where blobs go, and the upload limits. */
export type FilesModuleOptions = Omit<CreateFilesOptions, "store" | "db" | "now">;

/** Files as a module, plus the core (its URL prefix, the studio). */
export interface FilesModule extends SvcModule<IRouter> {
  readonly files: Files;
}

/**
 * Files built from the shared runtime: the `svc_files` table, the upload and
 * read routes, and the store's check on every write of a `file` field
 * (ready, and owned by the writer), which stops at `close`.
 */
export function filesModule(runtime: SvcRuntime, options: FilesModuleOptions): FilesModule {
  const files = createFiles({ ...options, store: runtime.store, db: runtime.db, now: runtime.now });
  return {
    name: "@svc/files",
    files,
    migrations: [filesMigrations()],
    routes: (app) => app.use(createFilesRouter(files)),
    async close() {
      files.close();
    },
  };
}
