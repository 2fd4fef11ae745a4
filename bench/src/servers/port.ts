/** The port the parent chose for this child (`BENCH_PORT`). */
export function portFromEnv(): number {
  const port = Number(process.env.BENCH_PORT);
  if (!Number.isInteger(port) || port <= 0 || port > 65_535) {
    throw new Error(`BENCH_PORT must be a TCP port, got ${JSON.stringify(process.env.BENCH_PORT)}`);
  }
  return port;
}
