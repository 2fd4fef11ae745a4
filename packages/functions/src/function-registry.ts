import type { FunctionDefinition } from "./define-function.js";
import type { HookDefinition } from "./define-hook.js";
import type { RoomDefinition } from "./define-room.js";

/** What a function file's default export may be: a callable function, a hook or room logic. */
export type FunctionFileDefinition = FunctionDefinition | HookDefinition | RoomDefinition;

/** Loaded function files by name (the file name without extension). */
export type FunctionRegistry = ReadonlyMap<string, FunctionFileDefinition>;
