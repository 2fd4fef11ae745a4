import type { EntityInput, FieldInput, ManifestInput } from "@svc/schema";
import { userManifest } from "./fixture.js";

/** The two `User` fields the account flows need: a unique email and when it was verified. */
export const accountFields = [
  { name: "email", type: "string", unique: true },
  { name: "emailVerified", type: "string", optional: true },
] as const satisfies readonly FieldInput[];

/** An owned entity, so the user's data reaches exports and deletions. */
export const todoEntity = {
  name: "Todo",
  fields: [
    { name: "title", type: "string" },
    { name: "ownerId", type: "string", owner: true },
  ],
} as const satisfies EntityInput;

/** The suites' manifest with a `User` of exactly `fields`, then `others`. */
export function userManifestWith(
  fields: readonly FieldInput[],
  ...others: readonly EntityInput[]
): ManifestInput & { entities: EntityInput[] } {
  return { ...userManifest, entities: [{ name: "User", fields: [...fields] }, ...others] };
}
