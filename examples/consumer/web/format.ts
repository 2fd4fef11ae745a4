const dates = new Intl.DateTimeFormat("en-US", { dateStyle: "medium" });

/** Unix seconds as a date, e.g. `Nov 26, 2026`. */
export function formatUnixDate(seconds: number): string {
  return dates.format(new Date(seconds * 1000));
}

/** The message of whatever a call rejected with. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs `work`, tracking whether it runs and what it failed with, for a form. */
export async function attempt(
  work: () => Promise<void>,
  setBusy: (busy: boolean) => void,
  setError: (error: string | null) => void,
): Promise<void> {
  setBusy(true);
  setError(null);
  try {
    await work();
  } catch (failure) {
    setError(messageOf(failure));
  } finally {
    setBusy(false);
  }
}
