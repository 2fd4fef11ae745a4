import type { FunctionDefinition } from "./define-function.js";
import type { HookDefinition } from "./define-hook.js";
import { ROOM_HANDLERS, type RoomDefinition } from "./define-room.js";
import { isPlainObject, isZodLike } from "./validate-args.js";

const TYPES: readonly unknown[] = ["query", "mutation", "action", "hook"];
const AUTH: readonly unknown[] = [undefined, "user", "guest"];

/**
 * Why `value` is not a function definition, as the end of a sentence, or
 * undefined when it is one. Duck-typed, so a plain `.mjs` object literal and
 * a definition built by another copy of @svc/functions both pass.
 */
export function findDefinitionProblem(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) {
    return "its default export must be query(...), mutation(...), action(...), hook(...) or room(...)";
  }
  const { type, handler, auth, args, on, cron } = value as Partial<Record<string, unknown>>;
  if (type === "room") return findRoomProblem(value as Partial<Record<string, unknown>>);
  if (!TYPES.includes(type))
    return `"type" must be "query", "mutation", "action", "hook" or "room"`;
  if (typeof handler !== "function") return `"handler" must be a function`;
  if (type === "hook") return findHookProblem(on);
  if (!AUTH.includes(auth)) return `"auth" must be "user" or "guest" when set`;
  if (cron !== undefined) {
    if (type === "query")
      return `a query cannot have "cron" (only mutations and actions run on a schedule)`;
    if (typeof cron !== "string" || cron.trim() === "" || cron.length > 200) {
      return `"cron" must be a cron expression such as "*/5 * * * *"`;
    }
  }
  if (args === undefined || isZodLike(args)) return undefined;
  if (!isPlainObject(args)) return `"args" must be a zod object or a record of zod schemas`;
  for (const [key, schema] of Object.entries(args)) {
    if (!isZodLike(schema)) return `"args.${key}" must be a zod schema`;
  }
  return undefined;
}

const HOOK_SHAPES =
  'a hook needs "on": { "delete": { "entity": "<Entity>" } } or { "billing": { "events"?: ["<type>", …] } }';

function findHookProblem(on: unknown): string | undefined {
  const target = on as
    | { delete?: { entity?: unknown }; billing?: { events?: unknown } }
    | undefined;
  if (target?.delete !== undefined) {
    const entity = target.delete.entity;
    return typeof entity === "string" && entity !== "" ? undefined : HOOK_SHAPES;
  }
  if (
    target?.billing !== undefined &&
    typeof target.billing === "object" &&
    target.billing !== null
  ) {
    const events = target.billing.events;
    if (events === undefined) return undefined;
    return Array.isArray(events) &&
      events.length > 0 &&
      events.every((event) => typeof event === "string" && event !== "")
      ? undefined
      : `a billing hook's "events" must be a non-empty list of event types`;
  }
  return HOOK_SHAPES;
}

const ROOM_KIND = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

function findRoomProblem(value: Partial<Record<string, unknown>>): string | undefined {
  if (typeof value.room !== "string" || !ROOM_KIND.test(value.room)) {
    return `a room definition needs "room", the kind it serves (a manifest rooms entry's name)`;
  }
  const handlers = ROOM_HANDLERS.filter((key) => value[key] !== undefined);
  if (handlers.length === 0) {
    return "a room definition needs at least one of onJoin, onLeave, onMessage and onTick";
  }
  const notFunction = handlers.find((key) => typeof value[key] !== "function");
  if (notFunction !== undefined) return `"${notFunction}" must be a function`;
  const { tickMs } = value;
  if (
    tickMs !== undefined &&
    (typeof tickMs !== "number" || !Number.isInteger(tickMs) || tickMs < 10 || tickMs > 3_600_000)
  ) {
    return `"tickMs" must be an integer from 10 to 3600000`;
  }
  return undefined;
}

/** Whether `value` is a function definition (see `findDefinitionProblem`). */
export function isFunctionDefinition(
  value: unknown,
): value is FunctionDefinition | HookDefinition | RoomDefinition {
  return findDefinitionProblem(value) === undefined;
}
