export {
  type AccessDecider,
  type AccessDecision,
  decideStoreAccess,
  describeDecider,
  type RuleTrace,
  type StoreAccessRequest,
} from "./access-tests/decide-access.js";
export { formatAccessReport, formatAuth } from "./access-tests/format-report.js";
export {
  type AccessCaller,
  type AccessCheck,
  type AccessRow,
  type ResolvedAccessSuite,
  resolveAccessSuite,
} from "./access-tests/resolve-suite.js";
export { idForName } from "./access-tests/rows.js";
export {
  type AccessMismatch,
  type AccessTestReport,
  type RunAccessTestsOptions,
  runAccessTests,
} from "./access-tests/run-access-tests.js";
export {
  type AccessTestDatabase,
  type ScratchTables,
  type WriteCandidate,
  withScratchTables,
} from "./access-tests/scratch-database.js";
export {
  ACCESS_TEST_LIMITS,
  type AccessCallerInput,
  type AccessCaseInput,
  type AccessSuiteInput,
  accessSuiteJSONSchema,
  accessSuiteSchema,
  parseAccessSuite,
} from "./access-tests/suite-schema.js";
