const dates = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short" });

/** An ISO timestamp as the page shows it, e.g. `Nov 26, 2026, 9:14 AM`. */
export function formatDate(iso: string): string {
  return dates.format(new Date(iso));
}

/** The message of whatever a call rejected with. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
