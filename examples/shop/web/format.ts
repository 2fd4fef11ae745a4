const money = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });

/** An amount in cents as the page shows it, e.g. `$12.00`. */
export function formatCents(cents: number): string {
  return money.format(cents / 100);
}

/** The message of whatever a call rejected with. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
