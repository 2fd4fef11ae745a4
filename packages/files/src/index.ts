export {
  type BlobInfo,
  type BlobRead,
  type BlobStore,
  isBlobKey,
  type UploadTarget,
} from "./blob-store.js";
export { createBlobStoreFromConfig, type FilesConfig, parseFilesConfig } from "./config.js";
export { checkContentType } from "./content-type.js";
export {
  type CreateFilesOptions,
  createFiles,
  DEFAULT_FILES_MAX_BYTES,
  DEFAULT_UPLOAD_TTL_SECS,
  type FileInfo,
  type Files,
  type InitUploadResult,
  initUploadInput,
  READ_URL_TTL_SECS,
} from "./create-files.js";
export { FilesError, type FilesErrorCode, filesErrorCodes } from "./errors.js";
export {
  createLocalBlobStore,
  DEFAULT_FILES_URL_PREFIX,
  type LocalBlobStore,
  type LocalBlobStoreOptions,
} from "./local-blob-store.js";
export { createS3BlobStore, type S3BlobStoreOptions } from "./s3-blob-store.js";
export { FILES_TABLE, type FilesTable, type FilesTables, filesMigrations } from "./tables.js";
export { isFileUploadPath } from "./upload-path.js";
