import type { Readable } from "node:stream";

/** Where a client sends an upload's bytes. */
export interface UploadTarget {
  readonly url: string;
  readonly method: "PUT";
  /** Headers the client must send with the PUT (the signature covers them). */
  readonly headers: Readonly<Record<string, string>>;
}

/** What a blob store knows about a stored object. */
export interface BlobInfo {
  readonly size: number;
  readonly contentType: string | null;
}

/** How a stored object is read: its bytes, or a short-lived URL that serves them. */
export type BlobRead =
  | { readonly kind: "stream"; readonly stream: Readable; readonly size: number }
  | { readonly kind: "redirect"; readonly url: string };

/**
 * The one small interface every storage provider implements. Keys are
 * server-generated file ids (40 lowercase hex characters), never client text.
 * `local` and `s3` ship here; the spec's hosted provider gives no shape (its
 * variables are omitted), so it is not implemented.
 */
export interface BlobStore {
  readonly kind: "local" | "s3";
  /** Where the client PUTs the bytes of `key`; valid for `expiresIn` seconds. */
  createUpload(input: {
    readonly key: string;
    readonly size: number;
    readonly contentType: string;
    readonly expiresIn: number;
  }): Promise<UploadTarget>;
  /** The stored object's size and type, or null when there is none. */
  head(key: string): Promise<BlobInfo | null>;
  /** The object's bytes (local) or a signed GET URL valid for `expiresIn` seconds (s3). */
  read(key: string, options: { readonly expiresIn: number }): Promise<BlobRead | null>;
  /** Removes the object; a missing object is not an error. */
  delete(key: string): Promise<void>;
}

const KEY = /^[0-9a-f]{40}$/;

/** Whether `key` is a valid object key (a file id); anything else is refused before any I/O. */
export function isBlobKey(key: unknown): key is string {
  return typeof key === "string" && KEY.test(key);
}
