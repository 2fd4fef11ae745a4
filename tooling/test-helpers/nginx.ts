import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Debian's nginx (`apt-get install nginx`, as `.ci/run` does), overridable
 * with `SVC_TEST_NGINX`. Nothing is downloaded.
 */
export const NGINX_PATH: string = process.env.SVC_TEST_NGINX ?? "/usr/sbin/nginx";

/** The load balancer in front of several svc servers. */
export interface NginxOptions {
  /** Each server's `host:port` (its main port: `/ws`, `/events` and `/shard/` are served there too). */
  readonly upstreams: readonly string[];
  /**
   * Adds `X-Upstream-Addr: <host:port>[, <host:port>...]` to every answer
   * (WebSocket upgrades included): the server or servers nginx tried, so a
   * test can tell where a request landed. Default false.
   */
  readonly exposeUpstream?: boolean;
  /** Idle keep-alive connections to the servers kept open (`keepalive`). Default 32. */
  readonly keepalive?: number;
}

/**
 * The whole configuration file for a foreground nginx of one process that
 * writes only under `dir` (pid file, error log, temporary files), so it
 * runs the same as root and as any other user: `daemon off`,
 * `master_process off` (one process, no `user` switch, nothing left
 * behind when it is killed), an `upstream` of the servers (round robin;
 * a server that refuses connections is skipped for 10 s; idle connections
 * to the servers closed after 4 s, before Node's 5 s keep-alive timeout
 * closes them under a request), and the proxy settings of
 * `deploy/nginx.conf`: WebSocket upgrades (`/ws`, `/shard/...`) and
 * unbuffered Server-Sent Events (`/events`).
 */
export function nginxConfig(
  options: NginxOptions & { readonly dir: string; readonly port: number },
): string {
  const { dir, port } = options;
  if (options.upstreams.length === 0) throw new Error("nginx needs at least one upstream");
  const servers = options.upstreams.map((address) => `        server ${address};`).join("\n");
  const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
    .map((kind) => `    ${kind}_temp_path ${join(dir, `${kind}_temp`)};`)
    .join("\n");
  return `daemon off;
master_process off;
worker_processes 1;
pid ${join(dir, "nginx.pid")};
error_log ${join(dir, "error.log")} warn;

events {
    worker_connections 1024;
}

http {
    access_log off;
${temp}

    map $http_upgrade $connection_upgrade {
        default upgrade;
        ''      '';
    }

    upstream svc {
${servers}
        keepalive ${options.keepalive ?? 32};
        keepalive_timeout 4s;
    }

    server {
        listen 127.0.0.1:${port};
${options.exposeUpstream === true ? "        add_header X-Upstream-Addr $upstream_addr always;\n" : ""}
        proxy_http_version 1.1;
        proxy_set_header Host $host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto $scheme;
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection $connection_upgrade;
        proxy_read_timeout 1h;
        proxy_send_timeout 1h;

        location / {
            proxy_pass http://svc;
        }

        location = /events {
            proxy_pass http://svc;
            proxy_buffering off;
        }
    }
}
`;
}

/** A running nginx; `await using` stops it and removes its directory. */
export interface RunningNginx extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
  /** The directory holding its configuration, pid file, error log and temporary files. */
  readonly dir: string;
  /** What nginx logged so far (warnings and errors: an upstream refusing, a reset). */
  errorLog(): string;
  /** Stops it (SIGTERM, SIGKILL after 2 s) and removes its directory. */
  stop(): Promise<void>;
}

/** Asks the OS for a free loopback port by binding port 0; nginx binds it a moment later. */
async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, "127.0.0.1");
  await once(probe, "listening");
  const address = probe.address();
  probe.close();
  await once(probe, "close");
  if (address === null || typeof address === "string") throw new Error("no port for the probe");
  return address.port;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (!alive(child)) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 2000);
  await exited;
  clearTimeout(timer);
}

/** Throws a line saying how to install nginx when `NGINX_PATH` is missing. */
export function requireNginx(): void {
  if (existsSync(NGINX_PATH)) return;
  throw new Error(
    `nginx is not installed at ${NGINX_PATH}: install Debian's nginx ` +
      "(DEBIAN_FRONTEND=noninteractive apt-get install -y nginx, as .ci/run does) " +
      "or set SVC_TEST_NGINX to its path",
  );
}

/**
 * Starts nginx in front of `options.upstreams` on a free loopback port, as
 * a child process (`nginx -p <dir> -c <dir>/nginx.conf`), and resolves once
 * it accepts connections. Fails with a line saying how to install nginx
 * when `NGINX_PATH` is missing, and with nginx's error log when it exits
 * or is not listening within `timeoutMs` (default 10 s). A port taken
 * between the probe and nginx's bind is retried with another.
 */
export async function startNginx(
  options: NginxOptions & { readonly timeoutMs?: number },
): Promise<RunningNginx> {
  requireNginx();
  const dir = mkdtempSync(join(tmpdir(), "svc-nginx-"));
  const config = join(dir, "nginx.conf");
  const errorLogPath = join(dir, "error.log");
  const errorLog = (): string =>
    existsSync(errorLogPath) ? readFileSync(errorLogPath, "utf8") : "";
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  try {
    for (let attempt = 1; ; attempt += 1) {
      const port = await freePort();
      writeFileSync(config, nginxConfig({ ...options, dir, port }));
      writeFileSync(errorLogPath, "");
      // -e: the log of the start itself, before the configuration is read.
      const child = spawn(NGINX_PATH, ["-p", dir, "-c", config, "-e", errorLogPath], {
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      let spawnError: Error | undefined;
      child.once("error", (error) => {
        spawnError = error;
      });
      while (alive(child) && spawnError === undefined && !(await accepts(port))) {
        if (Date.now() > deadline) {
          await stopChild(child);
          throw new Error(`nginx was not listening within the deadline: ${errorLog()}${stderr}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      if (spawnError !== undefined) throw spawnError;
      if (alive(child)) {
        const stop = async (): Promise<void> => {
          await stopChild(child);
          rmSync(dir, { recursive: true, force: true });
        };
        return {
          url: `http://127.0.0.1:${port}`,
          port,
          child,
          dir,
          errorLog,
          stop,
          [Symbol.asyncDispose]: stop,
        };
      }
      const log = `${errorLog()}${stderr}`;
      if (!/Address already in use/.test(log) || attempt >= 5 || Date.now() > deadline) {
        throw new Error(`nginx exited (${child.exitCode ?? child.signalCode}): ${log.trim()}`);
      }
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
