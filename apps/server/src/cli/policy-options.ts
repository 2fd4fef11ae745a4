import { PolicyUsageError } from "./policy-usage.js";

/** `--bound <n>`: candidates searched per entity and action (1..1,000,000). */
export function parseBound(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const bound = Number(text);
  if (!Number.isSafeInteger(bound) || bound < 1 || bound > 1_000_000) {
    throw new PolicyUsageError("--bound must be a whole number from 1 to 1000000");
  }
  return bound;
}
