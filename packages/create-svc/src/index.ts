export type { AppPackageJson } from "./app-package-json.js";
export { ScaffoldError, type ScaffoldErrorCode, scaffoldErrorCodes } from "./errors.js";
export { type CliIO, type CliOptions, runCli } from "./run-cli.js";
export {
  DEFAULT_TEMPLATE,
  type ScaffoldOptions,
  type ScaffoldResult,
  scaffold,
} from "./scaffold.js";
export {
  defaultTemplatesDir,
  listTemplates,
  readTemplatesIndex,
  TEMPLATES_INDEX_FILE,
  type TemplateInfo,
  type TemplatesIndex,
} from "./templates.js";
export { suggestPackageName, validatePackageName } from "./validate-name.js";
