/** One connection's way into the load scheduler (see `createLoadScheduler`). */
export interface LoadLimiter {
  /** Runs `work` when the scheduler gives this connection a turn; resolves or rejects with it. */
  run<T>(work: () => Promise<T>): Promise<T>;
}

/** Schedules the heavy reads (snapshots, live query runs) of every connection of a sync. */
export interface LoadScheduler {
  /** A new connection's lane: its loads run in order, at most `perLane` at once. */
  lane(): LoadLimiter;
}

/** Options of `createLoadScheduler`. */
export interface LoadSchedulerOptions {
  /** Loads of all connections in progress at once. */
  readonly maxConcurrent: number;
  /** Loads of one connection in progress at once. */
  readonly perLane: number;
}

interface Lane {
  running: number;
  readonly pending: (() => void)[];
  /** Whether the lane waits in `ready`. */
  queued: boolean;
}

/**
 * The scheduler of a sync's loads. Each load holds at most one snapshot or
 * live query value, so bounding loads bounds the bytes in flight: per
 * connection `perLane` times the frame bound, per process `maxConcurrent`
 * times it. Connections take turns (round robin), so one that asks for 256
 * snapshots at once does not hold back another's first one. And one load
 * starts per turn of the event loop: on SQLite a load mostly runs without
 * waiting for I/O, and starting several in one turn would keep every other
 * request (a `/health` check, an HTTP call) waiting for all of them.
 */
export function createLoadScheduler(options: LoadSchedulerOptions): LoadScheduler {
  const { maxConcurrent, perLane } = options;
  let running = 0;
  const ready: Lane[] = [];
  let stepping = false;

  const enqueue = (lane: Lane): void => {
    if (lane.queued || lane.pending.length === 0 || lane.running >= perLane) return;
    lane.queued = true;
    ready.push(lane);
  };

  const pump = (): void => {
    if (stepping || running >= maxConcurrent || ready.length === 0) return;
    stepping = true;
    setImmediate(step);
  };

  function step(): void {
    stepping = false;
    const lane = ready.shift();
    if (lane === undefined) return;
    lane.queued = false;
    const start = lane.pending.shift();
    if (start !== undefined) {
      lane.running += 1;
      running += 1;
      start();
    }
    // Back of the queue: the other connections go first.
    enqueue(lane);
    pump();
  }

  const finish = (lane: Lane): void => {
    lane.running -= 1;
    running -= 1;
    enqueue(lane);
    pump();
  };

  return {
    lane() {
      const lane: Lane = { running: 0, pending: [], queued: false };
      return {
        run<T>(work: () => Promise<T>): Promise<T> {
          return new Promise<T>((resolve, reject) => {
            lane.pending.push(() => {
              (async () => work())()
                .then(resolve, reject)
                .finally(() => finish(lane));
            });
            enqueue(lane);
            pump();
          });
        },
      };
    },
  };
}
