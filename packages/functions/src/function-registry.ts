import type { FunctionDefinition } from "./define-function.js";
import type { HookDefinition } from "./define-hook.js";

/** What a function file's default export may be: a callable function or a hook. */
export type FunctionFileDefinition = FunctionDefinition | HookDefinition;

/** Loaded function files by name (the file name without extension). */
export type FunctionRegistry = ReadonlyMap<string, FunctionFileDefinition>;
