import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type BlobStore, isBlobKey } from "./blob-store.js";
import { FilesError } from "./errors.js";

/** Options of `createLocalBlobStore`. */
export interface LocalBlobStoreOptions {
  /** The uploads directory (`SVC_FILES_DIR`); created when missing. */
  readonly dir: string;
  /** The URL prefix the files router serves (`SVC_FILES_URL_PREFIX`), e.g. `/api/files`. */
  readonly urlPrefix: string;
  /** Signs upload tokens; at least 32 bytes. Default: random per process (tokens die with it). */
  readonly secret?: Uint8Array | string;
  /** Unix ms. Default `Date.now`. */
  readonly now?: () => number;
}

/** The local-disk provider, plus what only svc's own upload route needs. */
export interface LocalBlobStore extends BlobStore {
  readonly kind: "local";
  /** Checks a one-time upload token's signature and expiry for `key` (throws `UPLOAD_EXPIRED`). */
  verifyToken(key: string, token: unknown): void;
  /**
   * Streams `body` to a temporary file, then renames it into place. Never
   * buffers the whole body; stops with `FILE_TOO_LARGE` (and leaves nothing)
   * as soon as more than `maxBytes` arrive.
   */
  write(key: string, body: Readable, options: { readonly maxBytes: number }): Promise<number>;
}

/** `SVC_FILES_URL_PREFIX`'s default. */
export const DEFAULT_FILES_URL_PREFIX = "/api/files";

/**
 * Files on local disk under `dir`, one file per key. Upload URLs are svc's
 * own `PUT <prefix>/upload/<key>?token=<expiry>.<hmac>`; the files core
 * makes each token single-use.
 *
 * @example
 * const blobs = createLocalBlobStore({ dir: "./.svc/files", urlPrefix: "/api/files" });
 */
export function createLocalBlobStore(options: LocalBlobStoreOptions): LocalBlobStore {
  const root = resolve(options.dir);
  const tmp = join(root, ".tmp");
  const secret = options.secret ?? randomBytes(32);
  const now = options.now ?? Date.now;
  let ready: Promise<void> | undefined;
  const ensureDirs = (): Promise<void> => {
    ready ??= mkdir(tmp, { recursive: true }).then(() => undefined);
    return ready;
  };
  // The key is checked to be 40 hex characters before any path is built, and
  // the result is checked to stay inside the root all the same.
  const pathOf = (key: string): string => {
    if (!isBlobKey(key)) throw new FilesError("FILE_NOT_FOUND");
    const path = join(root, key.slice(0, 2), key);
    if (!path.startsWith(root + sep)) throw new FilesError("FILE_NOT_FOUND");
    return path;
  };
  const sign = (key: string, expiresAt: number): string =>
    createHmac("sha256", secret).update(`${key}.${expiresAt}`).digest("base64url");

  return {
    kind: "local",
    async createUpload({ key, contentType, expiresIn }) {
      pathOf(key);
      const expiresAt = now() + expiresIn * 1000;
      const token = `${expiresAt}.${sign(key, expiresAt)}`;
      return {
        url: `${options.urlPrefix}/upload/${key}?token=${encodeURIComponent(token)}`,
        method: "PUT",
        headers: { "Content-Type": contentType },
      };
    },
    verifyToken(key, token) {
      const match = typeof token === "string" ? /^(\d{1,15})\.([\w-]{43})$/.exec(token) : null;
      if (match === null || !isBlobKey(key)) throw new FilesError("UPLOAD_EXPIRED");
      const expiresAt = Number(match[1]);
      const given = Buffer.from(match[2] ?? "");
      const expected = Buffer.from(sign(key, expiresAt));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new FilesError("UPLOAD_EXPIRED");
      }
      if (now() > expiresAt) throw new FilesError("UPLOAD_EXPIRED");
    },
    async write(key, body, { maxBytes }) {
      const target = pathOf(key);
      await ensureDirs();
      await mkdir(join(root, key.slice(0, 2)), { recursive: true });
      const temp = join(tmp, `${key}.${randomBytes(6).toString("hex")}`);
      let written = 0;
      async function* limit(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
        for await (const chunk of source) {
          written += chunk.length;
          if (written > maxBytes) throw new FilesError("FILE_TOO_LARGE");
          yield chunk;
        }
      }
      try {
        await pipeline(body, limit, createWriteStream(temp, { flags: "wx" }));
        await rename(temp, target);
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
      return written;
    },
    async head(key) {
      try {
        const info = await stat(pathOf(key));
        return info.isFile() ? { size: info.size, contentType: null } : null;
      } catch (error) {
        if ((error as { code?: unknown }).code === "ENOENT") return null;
        throw error;
      }
    },
    async read(key) {
      const info = await this.head(key);
      if (info === null) return null;
      return { kind: "stream", stream: createReadStream(pathOf(key)), size: info.size };
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
  };
}
