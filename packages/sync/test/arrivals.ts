/**
 * What a test client received, in arrival order: `next()` takes the oldest
 * one, or waits for the next to arrive.
 */
export interface Arrivals<T> {
  push(item: T): void;
  next(): Promise<T>;
}

export function arrivals<T>(): Arrivals<T> {
  const queued: T[] = [];
  const waiters: ((item: T) => void)[] = [];
  return {
    push(item) {
      const waiter = waiters.shift();
      if (waiter === undefined) queued.push(item);
      else waiter(item);
    },
    next() {
      const item = queued.shift();
      return item === undefined
        ? new Promise((resolve) => waiters.push(resolve))
        : Promise.resolve(item);
    },
  };
}
