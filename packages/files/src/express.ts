export { type FilesModule, type FilesModuleOptions, filesModule } from "./express/files-module.js";
export { createFilesRouter } from "./express/files-router.js";
export { isFileUploadPath } from "./upload-path.js";
