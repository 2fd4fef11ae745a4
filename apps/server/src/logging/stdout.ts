import { type DestinationStream, destination } from "pino";

/** A destination that can be told to write what it holds now. */
export interface BatchedStream extends DestinationStream {
  /** Hands every pending line to the underlying stream. */
  flush(): void;
}

/**
 * Gathers the lines of one event-loop turn into one string and hands it
 * to `out` once, at the end of the turn (`setImmediate`): under load one
 * write per few dozen lines instead of one per line, at no delay a
 * person would notice. Lines still pending when the process exits are
 * written synchronously.
 */
export function batchLines(out: DestinationStream & { flushSync?: () => void }): BatchedStream {
  let pending: string[] = [];
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (pending.length === 0) return;
    const text = pending.length === 1 ? (pending[0] as string) : pending.join("");
    pending = [];
    out.write(text);
  };
  process.once("exit", () => {
    flush();
    try {
      out.flushSync?.();
    } catch {
      // Standard output is gone: nothing left to tell.
    }
  });
  return {
    write(line: string): void {
      pending.push(line);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}

let shared: BatchedStream | undefined;

/**
 * Standard output, written asynchronously in batches (`batchLines`): one
 * per process, shared by every logger writing there.
 */
export function batchedStdout(): BatchedStream {
  shared ??= batchLines(destination({ dest: 1, sync: false }));
  return shared;
}
