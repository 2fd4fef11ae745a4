import { SvcError } from "@svc/client";
import { useEffect, useState } from "react";

/** What `useCodeCooldown` gives the sign-in form. */
export interface CodeCooldown {
  /** Whole seconds until a new code may be asked for; 0 when it may now. */
  readonly secondsLeft: number;
  /**
   * Starts the countdown when `error` is the send cooldown's 429
   * (`RATE_LIMITED`, one code per address a minute), from the answer's
   * `retry_after_secs`; answers whether it was.
   */
  start(error: unknown): boolean;
  /** Forgets the countdown (another address was typed). */
  reset(): void;
}

/**
 * The sign-in code's send cooldown as a countdown the page can show: a
 * second device asking for a code within the minute learns how long to
 * wait, and that the code the first device got works here too.
 */
export function useCodeCooldown(): CodeCooldown {
  const [until, setUntil] = useState<number | null>(null);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (until === null) return;
    const timer = setInterval(() => {
      const time = Date.now();
      setNow(time);
      if (time >= until) setUntil(null);
    }, 1000);
    return () => clearInterval(timer);
  }, [until]);
  return {
    secondsLeft: until === null ? 0 : Math.max(0, Math.ceil((until - now) / 1000)),
    start(error) {
      if (!(error instanceof SvcError) || error.code !== "RATE_LIMITED") return false;
      const time = Date.now();
      setNow(time);
      setUntil(time + (error.retryAfterSecs ?? 60) * 1000);
      return true;
    },
    reset() {
      setUntil(null);
    },
  };
}
