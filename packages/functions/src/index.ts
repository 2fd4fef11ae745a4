export type { RoomHandle, RoomMember, RoomMessage, RoomTick } from "@svc/schema";
export { findDefinitionProblem, isFunctionDefinition } from "./check-definition.js";
export type {
  ActionContext,
  BaseContext,
  Membership,
  MutationContext,
  QueryContext,
} from "./context.js";
export {
  createFunctionRunner,
  type FunctionRunner,
  type FunctionRunnerOptions,
  type FunctionSchedule,
  type RunOptions,
} from "./create-function-runner.js";
export {
  type ActionConfig,
  type ActionDefinition,
  type ArgsShape,
  type ArgsSpec,
  action,
  type FunctionAuth,
  type FunctionDefinition,
  type FunctionType,
  type InferArgs,
  type MaybePromise,
  type MutationConfig,
  type MutationDefinition,
  mutation,
  type QueryConfig,
  type QueryDefinition,
  query,
  type UntypedArgs,
} from "./define-function.js";
export {
  type BillingEventInput,
  type BillingHookConfig,
  type DeleteHookConfig,
  type HookConfig,
  type HookContext,
  type HookDefinition,
  hook,
  isBillingHook,
} from "./define-hook.js";
export {
  type RoomConfig,
  type RoomContext,
  type RoomDefinition,
  room,
} from "./define-room.js";
export {
  type EmailContext,
  type EmailInput,
  type EmailSender,
  MAX_EMAIL_RECIPIENTS,
  MAX_EMAIL_SUBJECT_LENGTH,
  MAX_EMAIL_TEXT_LENGTH,
  type OutgoingEmail,
} from "./email.js";
export {
  type ApplicationErrorCode,
  type ApplicationErrorOptions,
  FunctionsError,
  type FunctionsErrorCode,
  type FunctionsErrorOptions,
  functionsErrorCodes,
} from "./errors.js";
export {
  type FunctionFileName,
  type FunctionFileNameProblem,
  functionFileNames,
} from "./function-files.js";
export type { FunctionFileDefinition, FunctionRegistry } from "./function-registry.js";
export type {
  ApiOf,
  CallableDefinition,
  FunctionApi,
  InferCallArgs,
  InferFunctions,
  InferResult,
  JSONResult,
  JSONValue,
} from "./infer-types.js";
export { loadFunctions } from "./load-functions.js";
export type { FunctionLog, LogFields, LogSink } from "./log.js";
export type {
  JobScheduler,
  ScheduledCall,
  SchedulerContext,
  SchedulerTransaction,
} from "./scheduler.js";
