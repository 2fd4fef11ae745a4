/** Runs a connection's heavy reads (snapshots, live query runs) a few at a time. */
export interface LoadLimiter {
  /** Runs `work` once fewer than the bound are running; the others wait in order. */
  run<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * A limiter of `max` concurrent loads. Each load holds at most one
 * snapshot or live query value in memory, so a connection's bytes in
 * flight stay under `max` times the frame bound whatever it asks for: a
 * client that opens 256 subscriptions at once gets them one slot after
 * another, and the event loop serves other callers between them (a slot
 * passes to the next load on the next turn of the loop).
 */
export function createLoadLimiter(max: number): LoadLimiter {
  let running = 0;
  const waiting: (() => void)[] = [];
  return {
    async run(work) {
      if (running < max) running += 1;
      // A finishing load hands its slot straight to the next waiter.
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await work();
      } finally {
        const next = waiting.shift();
        if (next === undefined) running -= 1;
        // On the next turn of the event loop: loads that finish without I/O
        // would otherwise chain in microtasks and starve every other request.
        else setImmediate(next);
      }
    },
  };
}
