import type { AuthContext } from "@svc/schema";
import { openSession, type ServerFrame, type Session, type Sync } from "../src/index.js";

/** A session under test and the frames it sent, in order. */
export interface CollectingSession {
  readonly session: Session;
  readonly frames: ServerFrame[];
  /** Each frame's size on the wire, in bytes, in the order of `frames`. */
  readonly bytes: number[];
  /** Resolves with the first `count` frames once that many arrived. */
  until(count: number): Promise<ServerFrame[]>;
  /** Stops feeding the session `sync`'s published batches. */
  unsubscribe(): void;
}

/**
 * Opens a session for `auth` on an open socket that collects every frame
 * (change frames decoded), fed by the batches `sync` publishes, as the
 * transports wire it. A session error fails the test.
 */
export function collectingSession(sync: Sync, auth: AuthContext): CollectingSession {
  const frames: ServerFrame[] = [];
  const bytes: number[] = [];
  const waiters: (() => void)[] = [];
  const arrived = (frame: ServerFrame, size: number) => {
    frames.push(frame);
    bytes.push(size);
    for (const wake of waiters.splice(0)) wake();
  };
  const session = openSession(
    auth,
    sync,
    {
      send: (frame) => arrived(frame, Buffer.byteLength(JSON.stringify(frame))),
      sendChange: (encoded) =>
        arrived(JSON.parse(encoded.toString()) as ServerFrame, encoded.length),
      open: true,
    },
    (error) => {
      throw error;
    },
  );
  const unsubscribe = sync.subscribe((changes, resolveExists) =>
    session.deliver(changes, resolveExists),
  );
  return {
    session,
    frames,
    bytes,
    async until(count) {
      while (frames.length < count) await new Promise<void>((wake) => waiters.push(wake));
      return frames.slice(0, count);
    },
    unsubscribe,
  };
}
