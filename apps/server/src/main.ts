#!/usr/bin/env node
import { relative } from "node:path";
import { PolicyError, renderPolicyIssue } from "@svc/policy-engine";
import { ConfigError, parseConfig } from "./config.js";
import { startServer } from "./start-server.js";

/** How long SIGTERM waits for the close path before exiting regardless. */
const SHUTDOWN_FALLBACK_MS = 3000;

/**
 * The `svc-server` command: configuration comes only from the environment.
 * Configuration problems print one line each, naming the variable, and exit 1.
 */
async function main(): Promise<void> {
  try {
    const config = parseConfig(process.env, { checkManifest: true });
    const server = await startServer(config);
    // SIGTERM ends the process without an in-process drain (the spec's
    // contract: drain at the load balancer); the databases are
    // crash-consistent, so nothing acknowledged is lost. What is open is
    // still closed properly on the way out: WebSockets get 1001 (going
    // away, so clients reconnect elsewhere), SSE streams end instead of
    // being reset, running jobs give up their lease, buffered API key use
    // times are written, and the databases close. `drainSeconds: 0` cuts
    // in-flight HTTP requests at once instead of waiting for them.
    let stopping = false;
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      void server
        .close({ drainSeconds: 0 })
        .catch((error: unknown) => server.logger.error({ err: error }, "svc: shutdown failed"))
        .finally(() => process.exit(0));
      // A close that hangs (a database that does not answer) must not keep the process.
      setTimeout(() => process.exit(0), SHUTDOWN_FALLBACK_MS).unref();
    };
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
    // Announce only once the handlers are in place: whoever waits for this
    // line may signal at once. Through the log (a JSON line in production,
    // a readable one in dev mode); the message keeps the address as text.
    const { logger } = server;
    logger.info(
      { url: server.url },
      `svc: ${server.manifest.name} listening on ${server.url}${config.devMode ? " (dev mode)" : ""}`,
    );
    if (server.adminTokenFile !== undefined) {
      logger.info(`svc: admin token in ${relative(process.cwd(), server.adminTokenFile)}`);
    }
    logger.info(`svc: agent API at ${server.url}/agent/v1/docs, MCP at ${server.url}/mcp`);
    const sidePort = (port: number) => server.url.replace(/:\d+$/, `:${port}`);
    const { ws, events, shards } = server.livePorts;
    logger.info(
      `svc: live sync at ${server.url}/ws, /events and /shard/<room> (also on ports ${ws}, ${events} and ${shards}: ${sidePort(ws).replace(/^http/, "ws")}/ws, ${sidePort(events)}/events, ${sidePort(shards).replace(/^http/, "ws")}/shard/<room>)`,
    );
    for (const warning of server.warnings) logger.warn(`svc: warning: ${warning}`);
    // Lines wait for the end of the event-loop turn: whoever waits for the boot gets it now.
    logger.flush();
  } catch (error) {
    // Every boot problem svc itself detects (configuration, manifest,
    // policies, function files, cron schedules, migrations) carries a code
    // and a message written for the operator: print that one line, code
    // first (as the CLI commands do), so the docs' error tables can be
    // searched for it. Anything else is a bug or an environment failure,
    // printed whole. Plain lines on stderr, not the log: the log's settings
    // may be what failed, and whoever reads a failed boot is a person.
    const code = (error as { code?: unknown } | null)?.code;
    if (error instanceof ConfigError) {
      // One line per problem: every setting to fix, at once.
      for (const line of error.message.split("\n")) {
        console.error(`svc: invalid configuration: ${line}`);
      }
    } else if (error instanceof Error && typeof code === "string") {
      console.error(`svc: ${code}: ${error.message.replaceAll("\n", " ")}`);
      // A bad rule is shown with a caret under the place each problem points at.
      if (error instanceof PolicyError) {
        for (const issue of error.issues) {
          if (issue.source === undefined) continue;
          for (const line of renderPolicyIssue(issue, "    ").split("\n"))
            console.error(`svc:   ${line}`);
        }
      }
    } else {
      console.error("svc: failed to start:", error);
    }
    process.exit(1);
  }
}

await main();
