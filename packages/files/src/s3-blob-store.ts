import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { type BlobStore, isBlobKey } from "./blob-store.js";
import { FilesError } from "./errors.js";

/** Options of `createS3BlobStore`; the `SVC_S3_*` variables. */
export interface S3BlobStoreOptions {
  readonly bucket: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string | undefined;
  /** Default `us-east-1`. */
  readonly region?: string | undefined;
  /** An S3-compatible endpoint; addressed path-style when set. */
  readonly endpoint?: string | undefined;
  /** Prefix of every object key inside the bucket. Default none. */
  readonly keyPrefix?: string | undefined;
}

/**
 * Objects in an S3 bucket (or an S3-compatible store at `endpoint`,
 * path-style). Uploads are presigned PUTs whose signature covers the
 * declared `Content-Type` and `Content-Length`, so the bytes never pass
 * through svc; reads are presigned GETs.
 *
 * @example
 * const blobs = createS3BlobStore({ bucket: "uploads", accessKeyId, secretAccessKey });
 */
export function createS3BlobStore(options: S3BlobStoreOptions): BlobStore {
  const client = new S3Client({
    region: options.region ?? "us-east-1",
    credentials: {
      accessKeyId: options.accessKeyId,
      secretAccessKey: options.secretAccessKey,
      ...(options.sessionToken !== undefined && { sessionToken: options.sessionToken }),
    },
    ...(options.endpoint !== undefined && { endpoint: options.endpoint, forcePathStyle: true }),
    // Checksums a browser PUT cannot compute would otherwise be signed in.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
  const Bucket = options.bucket;
  const keyOf = (key: string): string => {
    if (!isBlobKey(key)) throw new FilesError("FILE_NOT_FOUND");
    return `${options.keyPrefix ?? ""}${key}`;
  };
  return {
    kind: "s3",
    async createUpload({ key, size, contentType, expiresIn }) {
      const command = new PutObjectCommand({
        Bucket,
        Key: keyOf(key),
        ContentType: contentType,
        ContentLength: size,
      });
      const url = await getSignedUrl(client, command, {
        expiresIn,
        signableHeaders: new Set(["content-type", "content-length"]),
        unhoistableHeaders: new Set(["content-type"]),
      });
      return { url, method: "PUT", headers: { "Content-Type": contentType } };
    },
    async head(key) {
      try {
        const out = await client.send(new HeadObjectCommand({ Bucket, Key: keyOf(key) }));
        return { size: out.ContentLength ?? 0, contentType: out.ContentType ?? null };
      } catch (error) {
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata
          ?.httpStatusCode;
        if (status === 404 || (error as { name?: string }).name === "NotFound") return null;
        throw error;
      }
    },
    async read(key, { expiresIn }) {
      const url = await getSignedUrl(client, new GetObjectCommand({ Bucket, Key: keyOf(key) }), {
        expiresIn,
      });
      return { kind: "redirect", url };
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: keyOf(key) }));
    },
  };
}
