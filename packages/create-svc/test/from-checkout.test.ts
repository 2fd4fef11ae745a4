import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  parseShellSteps,
  runShellSteps,
  shellBlocks,
  showsExpected,
} from "@svc/tooling/readme-shell";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../src/run-cli.js";
import { buildTestTemplates, tempDir, WORKSPACE_ROOT } from "./helpers.js";

// What a newcomer does with no published packages: scaffold from this
// checkout (`pnpm create-app <dir> --template <t>`), then follow the app's
// own README: its install and dev commands (install, build the page, boot
// the server the app depends on), its seed step where it has one, its
// first calls with the admin token; then load the page and call the app's
// functions. Needs the checkout built (`pnpm build`), as the README's set-up
// leaves it. The installs share pnpm's store (the one the checkout was
// installed from) and prefer what it already holds.
// Regression: the README of such an app said `npm install`, which stops
// with EUNSUPPORTEDPROTOCOL on its link: dependencies.

/** The answer of one HTTP call: status and parsed JSON body. */
interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** A booted app as a smoke check uses it. */
interface RunningApp {
  readonly dir: string;
  readonly url: string;
  /** The dev admin token the server wrote to `.svc/admin-token`. */
  readonly admin: string;
  request(method: string, path: string, token?: string, body?: unknown): Promise<Answer>;
  /** `POST /api/fn/<name>` as `token`. */
  call(name: string, args: Record<string, unknown>, token: string): Promise<Answer>;
  /** A user signed in by magic code, the dev-mode way the pages do it; answers the token. */
  signIn(email: string): Promise<string>;
}

interface Smoke {
  readonly template: string;
  /** What the server's environment adds (ai-chat's built-in echo model). */
  readonly env?: Readonly<Record<string, string>>;
  /** Calls the app's functions and checks their answers. */
  exercise(app: RunningApp): Promise<void>;
}

const SMOKES: readonly Smoke[] = [
  {
    template: "default",
    async exercise(app) {
      const added = await app.call("addNote", { text: "hello", ownerId: "me" }, app.admin);
      expect(added.status, JSON.stringify(added.body)).toBe(200);
      const listed = await app.call("listNotes", {}, app.admin);
      expect(listed.body).toMatchObject({ rows: [{ id: added.body.id, text: "hello" }] });
    },
  },
  {
    template: "todo",
    async exercise(app) {
      const user = await app.signIn("ada@example.com");
      const created = await app.call("createTodo", { title: "Milk" }, user);
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const listed = await app.call("listTodos", {}, user);
      expect(listed.body).toMatchObject({ rows: [{ id: created.body.id, title: "Milk" }] });
    },
  },
  {
    template: "chat",
    async exercise(app) {
      const user = await app.signIn("ada@example.com");
      const channel = await app.call("createChannel", { name: "General" }, user);
      expect(channel.status, JSON.stringify(channel.body)).toBe(200);
      expect(channel.body).toMatchObject({ name: "general" });
      const sent = await app.call("sendMessage", { channelId: channel.body.id, text: "hi" }, user);
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      const listed = await app.call("listMessages", { channelId: channel.body.id }, user);
      expect(listed.body).toMatchObject({ rows: [{ id: sent.body.id, text: "hi" }] });
    },
  },
  {
    template: "shop",
    async exercise(app) {
      // The template's seed data, which the README's seed step loaded.
      const seed = JSON.parse(await readFile(join(app.dir, "seed/products.json"), "utf8")) as {
        operations: { data: { name: string } }[];
      };
      const products = await fetch(`${app.url}/api/entities/Product?limit=100`, {
        headers: { authorization: `Bearer ${app.admin}` },
      });
      const rows = (await products.json()) as { id: string; name: string }[];
      expect(rows.map((row) => row.name).sort()).toEqual(
        seed.operations.map((operation) => operation.data.name).sort(),
      );
      const mug = rows.find((row) => row.name === seed.operations[0]?.data.name)?.id;
      const user = await app.signIn("ada@example.com");
      const added = await app.call("addToCart", { productId: mug, quantity: 2 }, user);
      expect(added.status, JSON.stringify(added.body)).toBe(200);
      const cart = await app.call("cart", {}, user);
      expect(cart.body).toMatchObject({
        lines: [{ productId: mug, quantity: 2, available: true }],
        itemCount: 2,
      });
    },
  },
  {
    template: "consumer",
    async exercise(app) {
      const user = await app.signIn("ada@example.com");
      const saved = await app.call("saveProfile", { displayName: "Ada" }, user);
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      expect(saved.body).toMatchObject({ created: true });
      const profile = await app.call("myProfile", {}, user);
      expect(profile.body).toMatchObject({ id: saved.body.id, displayName: "Ada" });
    },
  },
  {
    template: "waitlist",
    async exercise(app) {
      const user = await app.signIn("ada@example.com");
      const joined = await app.call("joinWaitlist", {}, user);
      expect(joined.status, JSON.stringify(joined.body)).toBe(200);
      expect(joined.body).toMatchObject({
        joined: true,
        entry: { position: 1, status: "waiting" },
      });
      const me = await app.call("me", {}, user);
      expect(me.body).toMatchObject({ entry: { position: 1 }, isAdmin: false });
    },
  },
  {
    template: "ai-chat",
    env: { AI_CHAT_MODEL_URL: "echo" },
    async exercise(app) {
      const user = await app.signIn("ada@example.com");
      const asked = await app.call("ask", { content: "hello there" }, user);
      expect(asked.status, JSON.stringify(asked.body)).toBe(200);
      expect(asked.body.reply).toContain("You said: hello there");
    },
  },
];

let templates: Awaited<ReturnType<typeof buildTestTemplates>>;
beforeAll(async () => {
  templates = await buildTestTemplates();
});
afterAll(() => templates?.[Symbol.dispose]());

/** Runs a command in `cwd` and expects it to succeed; answers its output. */
function run(
  command: string,
  args: string[],
  cwd: string,
  env: Readonly<Record<string, string>> = {},
): string {
  const result = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, CI: "true", ...env },
  });
  const output = `${result.stdout}\n${result.stderr}`;
  expect(result.status, `${command} ${args.join(" ")}\n${output}`).toBe(0);
  return output;
}

/**
 * Runs the README's dev command (`pnpm dev`: the page's build, then the
 * app's own `svc-server` in dev mode) in its own process group, on a free
 * port, and resolves with the address once the server listens. `stop`
 * ends the whole group (pnpm, its shell, the server).
 */
function bootWithReadme(
  appDir: string,
  command: string,
  env: Readonly<Record<string, string>>,
): Promise<{ url: string; child: ChildProcess; exited: Promise<void>; stop(): void }> {
  const child = spawn("bash", ["-c", command], {
    cwd: appDir,
    detached: true,
    env: {
      ...process.env,
      ...env,
      SVC_PORT: "0",
      SVC_HOST: "127.0.0.1",
      SVC_DB_PATH: ":memory:",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolveExit) => child.once("exit", () => resolveExit()));
  const stop = () => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, "SIGTERM");
  };
  return new Promise((resolveBoot, reject) => {
    let output = "";
    const onData = (chunk: Buffer) => {
      output += String(chunk);
      const url = /listening on (http:\/\/[^\s"]+)/.exec(output)?.[1];
      if (url !== undefined) resolveBoot({ url, child, exited, stop });
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`${command} exited with ${code}:\n${output}`)));
  });
}

function runningApp(dir: string, url: string, admin: string): RunningApp {
  const request = async (
    method: string,
    path: string,
    token?: string,
    body?: unknown,
  ): Promise<Answer> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        ...(token !== undefined && { authorization: `Bearer ${token}` }),
        ...(body !== undefined && { "content-type": "application/json" }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return {
    dir,
    url,
    admin,
    request,
    call: (name, args, token) => request("POST", `/api/fn/${name}`, token, args),
    async signIn(email) {
      const sent = await request("POST", "/api/auth/magic/send", undefined, { email });
      expect(sent.body.dev_code, JSON.stringify(sent.body)).toMatch(/^\d{6}$/);
      const verified = await request("POST", "/api/auth/magic/verify", undefined, {
        email,
        code: sent.body.dev_code,
      });
      expect(verified.body.token, JSON.stringify(verified.body)).toEqual(expect.any(String));
      return verified.body.token as string;
    },
  };
}

/** The directories of the React copies a bundle holds, from its source map. */
function bundledReactCopies(sourceMap: string): string[] {
  const { sources } = JSON.parse(sourceMap) as { sources: string[] };
  const copies = sources.flatMap((source) => {
    const match = /^(.*\/node_modules\/react)\/(?:index|cjs\/react\.[a-z]+)\.js$/.exec(source);
    return match?.[1] === undefined ? [] : [match[1]];
  });
  return [...new Set(copies)];
}

describe("an app scaffolded from this checkout", () => {
  it.each(SMOKES)(
    "installs, type-checks, builds, boots and answers from the $template template",
    async (smoke) => {
      using temp = tempDir();
      const appDir = join(temp.path, `${smoke.template}-app`);
      const output: string[] = [];
      const code = await runCli(
        [appDir, "--template", smoke.template, "--from-checkout", WORKSPACE_ROOT],
        { stdout: (text) => output.push(text), stderr: (text) => output.push(text) },
        { templatesDir: templates.dir },
      );
      expect(code, output.join("")).toBe(0);
      expect(output.join("")).toContain("\n  pnpm install\n  pnpm dev\n");
      const packageJson = JSON.parse(await readFile(join(appDir, "package.json"), "utf8")) as {
        scripts: Record<string, string>;
        dependencies: Record<string, string>;
      };
      const svcDependencies = Object.entries(packageJson.dependencies).filter(([name]) =>
        name.startsWith("@svc/"),
      );
      expect(svcDependencies.length).toBeGreaterThanOrEqual(2);
      for (const [name, specifier] of svcDependencies) {
        expect(specifier, name).toMatch(/^(link|file):/);
        const dir = specifier.replace(/^(link|file):/, "");
        expect(dir.startsWith(WORKSPACE_ROOT), specifier).toBe(true);
        expect(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name).toBe(name);
      }
      expect(packageJson.dependencies["@svc/server"]).toBe(
        `link:${join(WORKSPACE_ROOT, "apps/server")}`,
      );

      // The README's own commands: pnpm's (link: dependencies), install then dev.
      const readme = readFileSync(join(appDir, "README.md"), "utf8");
      const [runBlock, ...afterRun] = shellBlocks(readme, "Run it").map(parseShellSteps);
      expect(runBlock?.map((step) => step.command)).toEqual(["pnpm install", "pnpm dev"]);
      expect(readme).toContain("EUNSUPPORTEDPROTOCOL");
      const { packageManager } = JSON.parse(
        readFileSync(join(WORKSPACE_ROOT, "package.json"), "utf8"),
      ) as { packageManager: string };
      expect(readme).toContain(`\`npx --yes ${packageManager}\``);
      run("bash", ["-c", "pnpm install"], appDir, { npm_config_prefer_offline: "true" });
      if (packageJson.scripts.codegen !== undefined) {
        // The page's Api type, written again by the app's own `svc codegen`.
        const api = join(appDir, "web/svc-api.ts");
        rmSync(api);
        run("pnpm", ["run", "codegen"], appDir);
        expect(readFileSync(api, "utf8")).toContain(`(app "${smoke.template}-app")`);
      }
      run("pnpm", ["run", "typecheck"], appDir);
      // The template's access tests, through the app's own `svc policy test`.
      run("pnpm", ["run", "test"], appDir);

      const hasPage = packageJson.scripts.build !== undefined;
      expect(hasPage, "a build script exactly when the example has web/").toBe(
        existsSync(join(WORKSPACE_ROOT, "examples", smoke.template, "web", "main.tsx")),
      );
      if (hasPage) {
        expect(existsSync(join(appDir, "public/app.js"))).toBe(false);
        run("pnpm", ["run", "build"], appDir);
        expect(statSync(join(appDir, "public/app.js")).size).toBeGreaterThan(10_000);
        // One React: the app's. A second copy (the checkout's, through
        // @svc/client) would break every hook in the browser.
        const copies = bundledReactCopies(readFileSync(join(appDir, "public/app.js.map"), "utf8"));
        expect(copies).toHaveLength(1);
        expect(copies[0]).not.toContain(WORKSPACE_ROOT.slice(1));
      }

      const { url, exited, stop } = await bootWithReadme(
        appDir,
        runBlock?.[1]?.command ?? "",
        smoke.env ?? {},
      );
      try {
        const admin = (await readFile(join(appDir, ".svc", "admin-token"), "utf8")).trim();
        // The README's next blocks as written (its seed step, its first
        // calls with the admin token), against the port the server took.
        const port = new URL(url).port;
        const steps = afterRun.flat().map((step) => ({
          ...step,
          command: step.command.replaceAll("localhost:4321", `127.0.0.1:${port}`),
        }));
        expect(steps.length).toBeGreaterThanOrEqual(3);
        expect(steps.some((step) => step.command === "pnpm seed")).toBe(
          existsSync(join(appDir, "seed")),
        );
        const results = await runShellSteps(steps, {
          cwd: appDir,
          env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? appDir, SVC_PORT: port },
        });
        for (const { step, output, status } of results) {
          const report = `$ ${step.command}\n${output}`;
          expect(status, report).toBe(0);
          expect(showsExpected(output, step.expected), report).toBe(true);
          expect(output, report).not.toContain('"error":');
        }
        if (hasPage) {
          const page = await fetch(`${url}/`, { headers: { accept: "text/html" } });
          expect(page.status).toBe(200);
          expect(page.headers.get("content-type")).toMatch(/^text\/html/);
          const html = await page.text();
          expect(html).toBe(readFileSync(join(appDir, "public/index.html"), "utf8"));
          expect(html).toContain('src="/app.js"');
          const script = await fetch(`${url}/app.js`);
          expect(script.status).toBe(200);
          expect(script.headers.get("content-type")).toMatch(/^text\/javascript/);
          expect(await script.text()).toBe(readFileSync(join(appDir, "public/app.js"), "utf8"));
        }
        await smoke.exercise(runningApp(appDir, url, admin));
      } finally {
        stop();
        await exited;
      }
    },
    240_000,
  );

  it("knows a smoke check for every template", () => {
    expect(SMOKES.map((smoke) => smoke.template).sort()).toEqual(
      templates.index.templates.map((template) => template.name),
    );
  });

  it("refuses a directory that is not a checkout", async () => {
    using temp = tempDir();
    const output: string[] = [];
    const code = await runCli(
      [join(temp.path, "app"), "--from-checkout", temp.path],
      { stdout: (text) => output.push(text), stderr: (text) => output.push(text) },
      { templatesDir: templates.dir },
    );
    expect(code).toBe(1);
    expect(output.join("")).toContain("is not a checkout of the svc repository");
  });
});
