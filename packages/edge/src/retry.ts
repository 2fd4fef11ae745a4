import { isWriteConflict } from "./d1/d1-errors.js";
import { EdgeError } from "./errors.js";

/** How many times a write that lost to a concurrent one is run in all. */
export const MAX_WRITE_ATTEMPTS = 5;

/**
 * Runs `work` (a whole transaction: a mutation, an entity write, a batch)
 * again when its commit found the database changed since it read, up to
 * `MAX_WRITE_ATTEMPTS` times with a short random pause; then 503
 * `WRITE_CONFLICT`. A mutation handler may therefore run more than once; only
 * its committed run has effects (it cannot reach outside its transaction).
 */
export async function retryOnConflict<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isWriteConflict(error)) throw error;
      if (attempt >= MAX_WRITE_ATTEMPTS)
        throw new EdgeError("WRITE_CONFLICT", undefined, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
    }
  }
}
