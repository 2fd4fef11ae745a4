export { createFilesRouter } from "./express/files-router.js";
export { isFileUploadPath } from "./upload-path.js";
