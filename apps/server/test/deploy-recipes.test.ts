import { spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { nginxConfig } from "@svc/tooling/nginx";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../src/config.js";
import {
  type CaddyDirective,
  type DockerInstruction,
  fencedBlocks,
  type NginxDirective,
  parseCaddyfile,
  parseDockerEnv,
  parseDockerfile,
  parseEnvFile,
  parseNginx,
  parseUnit,
  REPO_ROOT,
  readRecipe,
  unitValue,
  unitValues,
} from "./deploy-recipes.js";
import { startTestServer, tempDir } from "./fixtures.js";

const SERVER_DIR = resolve(import.meta.dirname, "..");
const DOCS_DIR = resolve(REPO_ROOT, "packages/agent-docs/content/deployment");
const serverPackage = JSON.parse(readFileSync(join(SERVER_DIR, "package.json"), "utf8")) as {
  bin: Record<string, string>;
};

/** Values standing in for the recipes' `<...>` placeholders and platform secrets. */
const SAMPLES: Readonly<Record<string, string>> = {
  SVC_ADMIN_TOKEN: "a".repeat(128),
  SVC_AUTH_SECRET: "b".repeat(64),
  DATABASE_URL: "postgres://svc:secret@db.internal:5432/svc?sslmode=verify-full",
  SVC_S3_ACCESS_KEY: "AKIAEXAMPLEEXAMPLE",
  SVC_S3_SECRET_KEY: "example-secret-access-key",
};

/** Replaces placeholder values (`<...>`) by samples; a placeholder without one fails. */
function withSamples(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).map(([name, value]) => {
      if (!value.startsWith("<")) return [name, value];
      const sample = SAMPLES[name];
      if (sample === undefined) throw new Error(`no sample value for the placeholder of ${name}`);
      return [name, sample];
    }),
  );
}

/** The parsed configuration as comparable text (functions by name, maps and sets as arrays). */
function describeConfig(env: Record<string, string>): string {
  return JSON.stringify(parseConfig(env), (_key, value: unknown) => {
    if (typeof value === "function") return `[function ${value.name}]`;
    if (value instanceof Map) return [...value.entries()];
    if (value instanceof Set) return [...value];
    if (value === undefined) return "[undefined]";
    return value;
  });
}

/** Another valid-looking value of the same kind, to see whether the parser reads a variable. */
function variant(value: string): string {
  if (/^\d+$/.test(value)) return String(Number(value) + 1);
  if (/^https?:\/\//.test(value)) return `${value.replace(/\/$/, "")}/other`;
  return `${value}x`;
}

/**
 * Checks that `env` is a valid server environment and that the server's
 * configuration parser reads each of `names`: changing the variable either
 * changes the parsed configuration or is refused naming that variable.
 * Returns one line per problem.
 */
function unreadVariables(env: Record<string, string>, names: readonly string[]): string[] {
  const base = describeConfig(env);
  expect(describeConfig(env), "parseConfig is deterministic").toBe(base);
  const problems: string[] = [];
  for (const name of names) {
    const value = env[name];
    if (value === undefined) {
      problems.push(`${name}: not in the environment`);
      continue;
    }
    try {
      if (describeConfig({ ...env, [name]: variant(value) }) === base) {
        problems.push(`${name}: changing it changes nothing; the server does not read it`);
      }
    } catch (error) {
      if (!(error instanceof ConfigError) || error.variable !== name) {
        problems.push(`${name}: changing it fails on something else: ${String(error)}`);
      }
    }
  }
  return problems;
}

const envFile = parseEnvFile(readRecipe("svc.env.example"));
const hostEnv = withSamples(envFile);
const publicHost = new URL(hostEnv.SVC_PUBLIC_URL ?? "").host;
const upstream = `${hostEnv.SVC_HOST}:${hostEnv.SVC_PORT}`;

describe("the systemd recipe (deploy/svc.service, svc.env.example, svc-backup.*)", () => {
  const service = parseUnit(readRecipe("svc.service"));
  const backup = parseUnit(readRecipe("svc-backup.service"));
  const timer = parseUnit(readRecipe("svc-backup.timer"));

  it("passes systemd-analyze verify without a warning", () => {
    using dir = tempDir();
    // The units run /usr/bin/node; verify checks that the command exists.
    for (const name of ["svc.service", "svc-backup.service", "svc-backup.timer"]) {
      writeFileSync(
        join(dir.path, name),
        readRecipe(name).replaceAll("/usr/bin/node ", `${process.execPath} `),
      );
    }
    const verify = spawnSync(
      "systemd-analyze",
      ["verify", "--man=no", "svc.service", "svc-backup.service", "svc-backup.timer"],
      { cwd: dir.path, encoding: "utf8" },
    );
    expect(verify.error, "systemd-analyze must be installed (Debian: systemd)").toBeUndefined();
    expect({ status: verify.status, output: `${verify.stdout}${verify.stderr}` }).toEqual({
      status: 0,
      output: "",
    });
    const calendar = spawnSync(
      "systemd-analyze",
      ["calendar", unitValue(timer, "Timer", "OnCalendar")],
      { encoding: "utf8" },
    );
    expect(calendar.status, calendar.stderr).toBe(0);
  });

  it("runs the server's svc-server command as an unprivileged user, restarts it on failure and stops it with SIGTERM", () => {
    expect(serverPackage.bin["svc-server"]).toBe("./dist/main.js");
    expect(unitValue(service, "Service", "ExecStart")).toBe(
      "/usr/bin/node /srv/app/node_modules/@svc/server/dist/main.js",
    );
    expect(unitValue(service, "Service", "User")).toBe("svc");
    expect(unitValue(service, "Service", "WorkingDirectory")).toBe("/srv/app");
    expect(unitValue(service, "Service", "Restart")).toBe("on-failure");
    expect(unitValue(service, "Service", "KillSignal")).toBe("SIGTERM");
    expect(unitValue(service, "Service", "ProtectSystem")).toBe("strict");
    expect(unitValue(service, "Install", "WantedBy")).toBe("multi-user.target");
  });

  it("keeps every setting in the environment file, whose data paths are in the state directory", () => {
    expect(unitValue(service, "Service", "EnvironmentFile")).toBe("/etc/svc/svc.env");
    expect(unitValues(service, "Service", "Environment")).toEqual([]);
    const state = `/var/lib/${unitValue(service, "Service", "StateDirectory")}/`;
    for (const name of ["SVC_DB_PATH", "SVC_SESSION_DB", "SVC_JOBS_DB", "SVC_FILES_DIR"]) {
      expect(envFile[name], name).toMatch(new RegExp(`^${state}`));
    }
    expect(envFile.SVC_MANIFEST).toBe(
      `${unitValue(service, "Service", "WorkingDirectory")}/svc.json`,
    );
    expect(hostEnv.SVC_HOST).toBe("127.0.0.1");
  });

  it("sets only variables the server's configuration parser reads", () => {
    expect(unreadVariables(hostEnv, Object.keys(hostEnv))).toEqual([]);
  });

  it("backs up with the service's user, environment and files", () => {
    expect(serverPackage.bin.svc).toBe("./dist/cli.js");
    for (const key of ["User", "Group", "WorkingDirectory", "EnvironmentFile"]) {
      expect(unitValue(backup, "Service", key), key).toBe(unitValue(service, "Service", key));
    }
    expect(unitValue(backup, "Service", "Type")).toBe("oneshot");
    expect(unitValue(backup, "Service", "ReadWritePaths").split(" ")).toEqual([
      "/var/lib/svc",
      "/var/backups/svc",
    ]);
    expect(unitValue(timer, "Timer", "Persistent")).toBe("true");
    expect(unitValue(timer, "Install", "WantedBy")).toBe("timers.target");
  });

  it("has backup commands that work: a dated backup, and backups older than 14 days removed", async () => {
    using dir = tempDir();
    const backups = join(dir.path, "backups");
    mkdirSync(join(backups, "20000101T000000Z"), { recursive: true });
    const old = new Date(Date.now() - 15 * 24 * 3600 * 1000);
    utimesSync(join(backups, "20000101T000000Z"), old, old);
    const database = new Database(join(dir.path, "data.db"));
    database.exec("create table t (x)");
    database.close();
    // systemd's own unescaping ($$ and %%), then the host paths for this machine.
    const command = (line: string): string => {
      // A single % starts a systemd specifier (%Y, %m, ...), which would be expanded.
      expect(line.replaceAll("%%", ""), "unescaped % in a command").not.toContain("%");
      return line
        .replaceAll("$$", "$")
        .replaceAll("%%", "%")
        .replaceAll(
          "/usr/bin/node /srv/app/node_modules/@svc/server/dist/cli.js",
          `${process.execPath} --conditions=@svc/source --import tsx src/cli.ts`,
        )
        .replaceAll("/var/backups/svc", backups);
    };
    const env = {
      ...hostEnv,
      PATH: process.env.PATH ?? "",
      SVC_DB_PATH: join(dir.path, "data.db"),
      SVC_SESSION_DB: join(dir.path, "sessions.db"),
      SVC_JOBS_DB: join(dir.path, "jobs.db"),
      SVC_FILES_DIR: join(dir.path, "files"),
    };
    const start = command(unitValue(backup, "Service", "ExecStart"));
    expect(start).toMatch(/^\/bin\/sh -c '(.*)'$/);
    const script = /^\/bin\/sh -c '(.*)'$/.exec(start)?.[1] ?? "";
    const ran = await runProcess("/bin/sh", ["-c", script], env);
    expect(ran).toMatchObject({ code: 0, stderr: "" });
    const post = command(unitValue(backup, "Service", "ExecStartPost")).split(" ");
    const pruned = spawnSync(post[0] ?? "", post.slice(1), { encoding: "utf8" });
    expect(pruned.status, pruned.stderr).toBe(0);
    const left = readdirSync(backups);
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^\d{8}T\d{6}Z$/);
    expect(existsSync(join(backups, left[0] ?? "", "backup.json"))).toBe(true);
  }, 60_000);
});

/** Runs a command in the server directory without blocking this process. */
function runProcess(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { cwd: SERVER_DIR, env, stdio: "pipe" });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once("error", reject);
    child.once("exit", (code) => resolveRun({ code, stderr }));
  });
}

/** The directives named `name` in `block`. */
function named<T extends { name: string }>(block: readonly T[] | undefined, name: string): T[] {
  return (block ?? []).filter((directive) => directive.name === name);
}

describe("the Caddyfile", () => {
  const sites = parseCaddyfile(readRecipe("Caddyfile"));

  it("serves the public host name with automatic HTTPS and proxies to the service's address", () => {
    expect(sites.map((site) => site.name)).toEqual([publicHost]);
    const site = sites[0] as CaddyDirective;
    const [proxy, ...more] = named(site.block, "reverse_proxy");
    expect(more).toEqual([]);
    expect(proxy?.args).toEqual([upstream]);
    // Holds requests while svc restarts after SIGTERM (no in-process drain).
    expect(named(proxy?.block, "lb_try_duration").map((d) => d.args)).toEqual([["10s"]]);
  });

  it("keeps /metrics private and uses only known directives", () => {
    const site = sites[0] as CaddyDirective;
    expect(site.block).toContainEqual({ name: "@metrics", args: ["path", "/metrics"] });
    expect(site.block).toContainEqual({ name: "respond", args: ["@metrics", "404"] });
    const known = new Set(["header", "respond", "reverse_proxy"]);
    const unknown = (site.block ?? []).filter(
      (directive) => !directive.name.startsWith("@") && !known.has(directive.name),
    );
    expect(unknown).toEqual([]);
    const proxyKnown = new Set(["lb_try_duration", "lb_try_interval", "flush_interval"]);
    const proxy = named(site.block, "reverse_proxy")[0];
    expect((proxy?.block ?? []).filter((d) => !proxyKnown.has(d.name))).toEqual([]);
  });
});

describe("the nginx configuration", () => {
  const config = parseNginx(readRecipe("nginx.conf"));
  const servers = named(config, "server");
  const https = servers.find((server) =>
    named(server.block, "listen").some((listen) => listen.args.includes("ssl")),
  );
  const http = servers.find((server) => server !== https);

  it("upgrades WebSocket connections and proxies to the service's address", () => {
    const map = named(config, "map")[0];
    expect(map?.args).toEqual(["$http_upgrade", "$connection_upgrade"]);
    const upstreamBlock = named(config, "upstream")[0];
    expect(upstreamBlock?.args).toEqual(["svc"]);
    expect(named(upstreamBlock?.block, "server").map((d) => d.args)).toEqual([[upstream]]);
    const root = named(https?.block, "location").find((d) => d.args.join(" ") === "/");
    const settings = (name: string) => named(root?.block, name).map((d) => d.args.join(" "));
    expect(settings("proxy_pass")).toEqual(["http://svc"]);
    expect(settings("proxy_http_version")).toEqual(["1.1"]);
    expect(settings("proxy_set_header")).toEqual(
      expect.arrayContaining([
        "Host $host",
        "X-Forwarded-For $proxy_add_x_forwarded_for",
        "X-Forwarded-Proto $scheme",
        "Upgrade $http_upgrade",
        "Connection $connection_upgrade",
      ]),
    );
    expect(settings("proxy_read_timeout")).toEqual(["1h"]);
  });

  it("terminates TLS for the public host name and redirects plain HTTP", () => {
    expect(named(https?.block, "server_name").map((d) => d.args)).toEqual([[publicHost]]);
    expect(named(http?.block, "server_name").map((d) => d.args)).toEqual([[publicHost]]);
    for (const key of ["ssl_certificate", "ssl_certificate_key"]) {
      expect(named(https?.block, key)[0]?.args[0], key).toContain(`/${publicHost}/`);
    }
    const redirect = named(http?.block, "location").find((d) => d.args.join(" ") === "/");
    expect(named(redirect?.block, "return").map((d) => d.args)).toEqual([
      ["301", "https://$host$request_uri"],
    ]);
  });

  it("accepts uploads as large as the server does, keeps /metrics private and uses only known directives", () => {
    const size = named(https?.block, "client_max_body_size")[0]?.args[0] ?? "";
    expect(size).toMatch(/^\d+m$/);
    expect(Number.parseInt(size, 10) * 1024 * 1024).toBeGreaterThanOrEqual(
      parseConfig(hostEnv).files.maxBytes,
    );
    const metrics = named(https?.block, "location").find((d) => d.args.join(" ") === "= /metrics");
    expect(metrics?.block).toEqual([{ name: "return", args: ["404"] }]);
    const known = new Set(
      "map upstream server keepalive keepalive_timeout listen server_name location root return ssl_certificate ssl_certificate_key ssl_protocols add_header client_max_body_size proxy_pass proxy_http_version proxy_set_header proxy_read_timeout proxy_send_timeout".split(
        " ",
      ),
    );
    const unknown: string[] = [];
    const walk = (block: readonly NginxDirective[], inMap: boolean): void => {
      for (const directive of block) {
        if (!inMap && !known.has(directive.name)) unknown.push(directive.name);
        if (directive.block) walk(directive.block, directive.name === "map");
      }
    };
    walk(config, false);
    expect(unknown).toEqual([]);
  });
});

describe("the nginx configuration for several servers", () => {
  const config = parseNginx(readRecipe("nginx-scale-out.conf"));
  const single = parseNginx(readRecipe("nginx.conf"));
  // What cluster-nginx.test.ts runs nginx with, in front of three servers.
  const tested = named(
    parseNginx(nginxConfig({ dir: "/tmp", port: 8080, upstreams: ["127.0.0.1:1", "127.0.0.1:2"] })),
    "http",
  )[0]?.block;
  const isHttps = (server: NginxDirective): boolean =>
    named(server.block, "listen").some((listen) => listen.args.includes("ssl"));
  const https = named(config, "server").find(isHttps);
  const testedServer = named(tested, "server")[0];
  const upstreamSettings = (block: readonly NginxDirective[] | undefined) =>
    (named(block, "upstream")[0]?.block ?? []).filter((directive) => directive.name !== "server");
  // The proxy settings and every location but the private /metrics.
  const isProxying = (directive: NginxDirective): boolean =>
    directive.name.startsWith("proxy_") ||
    (directive.name === "location" && directive.args.join(" ") !== "= /metrics");
  const proxying = (block: readonly NginxDirective[] | undefined) =>
    (block ?? []).filter(isProxying);

  it("balances over several servers and proxies exactly as the configuration the three-server test runs", () => {
    expect(named(named(config, "upstream")[0]?.block, "server").length).toBeGreaterThan(1);
    expect(named(config, "map")).toEqual(named(tested, "map"));
    expect(upstreamSettings(config)).toEqual(upstreamSettings(tested));
    expect(proxying(https?.block)).toEqual(proxying(testedServer?.block));
    expect(proxying(https?.block).map((directive) => directive.args.join(" "))).toEqual(
      expect.arrayContaining([
        "Upgrade $http_upgrade",
        "Connection $connection_upgrade",
        "/",
        "= /events",
      ]),
    );
  });

  it("keeps the single-host recipe's TLS, redirect, upload size and private /metrics", () => {
    const rest = (block: readonly NginxDirective[] | undefined) =>
      (block ?? []).filter((directive) => !isProxying(directive));
    const singleHttps = named(single, "server").find(isHttps);
    expect(rest(https?.block)).toEqual(rest(singleHttps?.block));
    expect(named(config, "server").filter((server) => !isHttps(server))).toEqual(
      named(single, "server").filter((server) => !isHttps(server)),
    );
    expect(upstreamSettings(config)).toEqual(
      upstreamSettings(single).map((directive) =>
        directive.name === "keepalive" ? { ...directive, args: ["32"] } : directive,
      ),
    );
  });
});

describe("the container recipe (deploy/Dockerfile)", () => {
  const instructions = parseDockerfile(readRecipe("Dockerfile"));
  const stageStarts = instructions.flatMap((instruction, index) =>
    instruction.keyword === "FROM" ? [index] : [],
  );
  const finalStage = instructions.slice(stageStarts.at(-1));
  const only = (keyword: string): DockerInstruction => {
    const found = finalStage.filter((instruction) => instruction.keyword === keyword);
    expect(found, keyword).toHaveLength(1);
    return found[0] as DockerInstruction;
  };
  const imageEnv = Object.assign(
    {},
    ...finalStage.filter((i) => i.keyword === "ENV").map((i) => parseDockerEnv(i.args)),
  ) as Record<string, string>;
  const healthCommand = JSON.parse(only("HEALTHCHECK").args.replace(/^.*?CMD\s+/, "")) as string[];

  it("pins its base images and never downloads with ADD", () => {
    const froms = instructions.filter((instruction) => instruction.keyword === "FROM");
    for (const from of froms) {
      expect(from.args).toMatch(/^node:(\d+)-[a-z]+-slim( AS [a-z]+)?$/);
      expect(Number(/^node:(\d+)/.exec(from.args)?.[1])).toBeGreaterThanOrEqual(22);
    }
    expect(instructions.filter((instruction) => instruction.keyword === "ADD")).toEqual([]);
    const stages = new Set(froms.map((from) => / AS ([a-z]+)$/.exec(from.args)?.[1]));
    for (const copy of instructions.filter((i) => i.keyword === "COPY")) {
      const source = /--from=(\S+)/.exec(copy.args)?.[1];
      if (source !== undefined) expect(stages.has(source), copy.args).toBe(true);
    }
  });

  it("runs the server as a non-root user that owns only the /data volume", () => {
    const user = only("USER").args;
    expect(["", "root", "0", "0:0"]).not.toContain(user);
    // Everything after USER runs as that user, the server included.
    const switched = finalStage.findIndex((i) => i.keyword === "USER");
    const lastRoot = finalStage.findLastIndex((i) => ["RUN", "COPY"].includes(i.keyword));
    expect(switched).toBeGreaterThan(lastRoot);
    expect(switched).toBeLessThan(finalStage.findIndex((i) => i.keyword === "CMD"));
    expect(only("VOLUME").args).toBe('["/data"]');
    expect(only("RUN").args).toBe(`mkdir /data && chown ${user}:${user} /data`);
    for (const name of ["SVC_DB_PATH", "SVC_SESSION_DB", "SVC_JOBS_DB", "SVC_FILES_DIR"]) {
      expect(imageEnv[name], name).toMatch(/^\/data\//);
    }
    expect(imageEnv.SVC_MANIFEST).toBe(`${only("WORKDIR").args}/svc.json`);
  });

  it("starts @svc/server's main script in exec form on the port it exposes", () => {
    expect(JSON.parse(only("CMD").args)).toEqual([
      "node",
      `node_modules/@svc/server/${serverPackage.bin["svc-server"]?.replace(/^\.\//, "")}`,
    ]);
    expect(only("EXPOSE").args).toBe(imageEnv.SVC_PORT);
    expect(healthCommand.slice(0, 2)).toEqual(["node", "-e"]);
  });

  it("sets only variables the server's configuration parser reads", () => {
    const env = { ...imageEnv, SVC_ADMIN_TOKEN: SAMPLES.SVC_ADMIN_TOKEN ?? "" };
    expect(unreadVariables(env, Object.keys(imageEnv))).toEqual([]);
  });

  it("keeps node_modules and the local .svc data out of the image", () => {
    const ignored = readRecipe("Dockerfile.dockerignore")
      .split("\n")
      .filter((line) => line !== "" && !line.startsWith("#"));
    expect(ignored).toEqual(expect.arrayContaining(["node_modules", ".svc", ".git"]));
  });

  it("has a HEALTHCHECK command that passes against a running server and fails without one", async () => {
    const [command, ...args] = healthCommand;
    expect(command).toBe("node");
    // Async: the server answering the check runs in this process.
    const check = (port: number) => runProcess(process.execPath, args, { SVC_PORT: String(port) });
    let port: number;
    {
      using dir = tempDir();
      await using server = await startTestServer({ SVC_DB_PATH: join(dir.path, "data.db") });
      port = Number(new URL(server.url).port);
      expect(await check(port)).toEqual({ code: 0, stderr: "" });
    }
    // The server is closed: nothing answers on its port now.
    expect((await check(port)).code).toBe(1);
  }, 60_000);
});

describe("the cloud recipe (deploy/ecs-task-definition.json)", () => {
  interface Container {
    user: string;
    portMappings: { containerPort: number }[];
    environment: { name: string; value: string }[];
    secrets: { name: string; valueFrom: string }[];
    healthCheck: { command: string[] };
    stopTimeout: number;
  }
  const task = JSON.parse(readRecipe("ecs-task-definition.json")) as {
    networkMode: string;
    requiresCompatibilities: string[];
    containerDefinitions: Container[];
  };
  const container = task.containerDefinitions[0] as Container;
  const imageEnv = Object.assign(
    {},
    ...parseDockerfile(readRecipe("Dockerfile"))
      .filter((i) => i.keyword === "ENV")
      .map((i) => parseDockerEnv(i.args)),
  ) as Record<string, string>;

  it("runs one non-root container of the image on its port, checked like the image", () => {
    expect(task.containerDefinitions).toHaveLength(1);
    expect(task).toMatchObject({ networkMode: "awsvpc", requiresCompatibilities: ["FARGATE"] });
    expect(["", "root", "0"]).not.toContain(container.user);
    expect(container.portMappings.map((p) => String(p.containerPort))).toEqual([imageEnv.SVC_PORT]);
    const dockerfile = parseDockerfile(readRecipe("Dockerfile"));
    const health = dockerfile.find((i) => i.keyword === "HEALTHCHECK")?.args ?? "";
    expect(container.healthCheck.command).toEqual([
      "CMD",
      ...(JSON.parse(health.replace(/^.*?CMD\s+/, "")) as string[]),
    ]);
    expect(container.stopTimeout).toBeGreaterThan(0);
  });

  it("takes secrets from the secret store only, and sets only variables the server reads", () => {
    const plain = container.environment.map((variable) => variable.name);
    expect(plain.filter((name) => /TOKEN|SECRET|KEY|PASSWORD|DATABASE_URL/.test(name))).toEqual([]);
    const secret = container.secrets.map((variable) => variable.name);
    expect(secret).toEqual(expect.arrayContaining(["DATABASE_URL", "SVC_ADMIN_TOKEN"]));
    const env = withSamples({
      ...imageEnv,
      ...Object.fromEntries(container.environment.map(({ name, value }) => [name, value])),
      ...Object.fromEntries(secret.map((name) => [name, "<from the secret store>"])),
    });
    expect(unreadVariables(env, [...plain, ...secret])).toEqual([]);
  });
});

describe("the deployment docs", () => {
  const pages = readdirSync(DOCS_DIR)
    .filter((name) => name.endsWith(".md"))
    .map((name) => ({ name, text: readFileSync(join(DOCS_DIR, name), "utf8") }));
  const shown = pages.flatMap((page) =>
    fencedBlocks(page.text).flatMap((block) =>
      block.flags
        .filter((flag) => flag.startsWith("file="))
        .map((flag) => ({ page: page.name, line: block.line, path: flag.slice(5), block })),
    ),
  );

  it("show each recipe file exactly as it is in deploy/", () => {
    expect(shown.length).toBeGreaterThan(0);
    for (const { page, line, path, block } of shown) {
      expect(`${block.code}\n`, `${page}:${line} shows ${path}`).toBe(
        readFileSync(resolve(REPO_ROOT, path), "utf8"),
      );
    }
  });

  it("show every file of deploy/", () => {
    const files = readdirSync(resolve(REPO_ROOT, "deploy")).map((name) => `deploy/${name}`);
    expect(files.filter((file) => !shown.some((s) => s.path === file))).toEqual([]);
  });

  it("name only variables that exist in the server's code", () => {
    const sources = [
      resolve(SERVER_DIR, "src"),
      ...readdirSync(resolve(REPO_ROOT, "packages")).map((name) =>
        resolve(REPO_ROOT, "packages", name, "src"),
      ),
      resolve(REPO_ROOT, "tooling/test-helpers"),
    ].filter((dir) => existsSync(dir));
    const code = sources
      .flatMap((dir) =>
        (readdirSync(dir, { recursive: true }) as string[])
          .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
          .map((file) => readFileSync(join(dir, file), "utf8")),
      )
      .join("\n");
    const mine = [
      "shapes.md",
      "single-host.md",
      "container.md",
      "cloud.md",
      "local-dev.md",
      "edge-and-managed.md",
      "backup.md",
    ];
    const unknown = pages
      .filter((page) => mine.includes(page.name))
      .flatMap((page) =>
        [...page.text.matchAll(/\b(SVC_[A-Z0-9_]*[A-Z0-9]|DATABASE_URL)\b/g)]
          .map((match) => match[1] ?? "")
          .filter((name) => !new RegExp(`\\b${name}\\b`).test(code))
          .map((name) => `${page.name}: ${name}`),
      );
    expect(unknown).toEqual([]);
  });

  it("say SIGTERM stops without an in-process drain and drain belongs to the load balancer", () => {
    const text = pages.map((page) => page.text).join("\n");
    expect(text).toContain("no in-process drain");
    expect(text).toMatch(/drain at the load balancer/i);
  });
});
