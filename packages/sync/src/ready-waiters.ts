/**
 * The callers of a connection's `ready()` waiting for it to come up: all
 * released together, when it is up or with the one error that stopped it.
 */
export class ReadyWaiters {
  #pending: { resolve(): void; reject(error: unknown): void }[] = [];

  /** A promise the next `settle` settles. */
  wait(): Promise<void> {
    return new Promise<void>((resolve, reject) => this.#pending.push({ resolve, reject }));
  }

  /** Resolves everyone waiting, or rejects them all with `error` when one is given. */
  settle(error?: unknown): void {
    const pending = this.#pending;
    this.#pending = [];
    for (const waiter of pending) {
      if (error === undefined) waiter.resolve();
      else waiter.reject(error);
    }
  }
}
