import { describe, expect, it } from "vitest";
import { type AppReadmeInput, createAppReadme } from "./app-readme.js";

const INPUT: AppReadmeInput = {
  name: "my-app",
  template: { name: "default", description: "Notes with an owner." },
  entities: ["Note"],
  functions: [
    { name: "addNote", type: "mutation" },
    { name: "listNotes", type: "query", takesEmptyArgs: true },
    { name: "helper", type: undefined },
  ],
  functionsDir: "functions",
};

describe("createAppReadme", () => {
  it("names the app, the template and what it contains", () => {
    const readme = createAppReadme(INPUT);
    expect(readme).toMatch(/^# my-app\n/);
    expect(readme).toContain("from the `default` template. Notes with an owner.");
    expect(readme).toContain("entities (`Note`)");
    expect(readme).toContain("`addNote` (mutation), `listNotes` (query), `helper`;");
  });

  it("shows a first call to a query, which takes `{}`", () => {
    expect(createAppReadme(INPUT)).toContain("localhost:4321/api/fn/listNotes \\\n");
  });

  it("lists an entity's rows when no query takes {}, else shows a placeholder", () => {
    const needsArgs = {
      ...INPUT,
      entities: ["User", "Channel"],
      functions: [{ name: "listMessages", type: "query" as const, takesEmptyArgs: false }],
    };
    const readme = createAppReadme(needsArgs);
    expect(readme).toContain(
      'curl -s localhost:4321/api/entities/Channel -H "Authorization: Bearer $TOKEN"',
    );
    expect(readme).not.toContain("/api/fn/listMessages");
    const none = createAppReadme({ ...INPUT, functions: [], entities: [] });
    expect(none).toContain("/api/fn/<name> ");
    expect(none).toContain("entities (none yet)");
  });

  it("names hooks and says they are not called over HTTP", () => {
    const readme = createAppReadme({
      ...INPUT,
      functions: [...INPUT.functions, { name: "purgeUser", type: "hook" }],
    });
    expect(readme).toContain("`purgeUser` (hook)");
    expect(readme).toContain("a hook runs inside the write it is declared on");
    expect(createAppReadme(INPUT)).not.toContain("hook");
  });

  it("explains the dev script on Windows and the production variables", () => {
    const readme = createAppReadme(INPUT);
    expect(readme).toContain('$env:SVC_DEV_MODE="true"; npm start');
    expect(readme).toContain("SVC_ADMIN_TOKEN");
  });

  it("says nothing of a build for an app without a front end", () => {
    const readme = createAppReadme(INPUT);
    expect(readme).not.toContain("npm run build");
    expect(readme).not.toContain("`web/`");
    expect(readme).not.toContain("codegen");
  });

  it("explains the front end: dev builds it, the page is at /, production builds first", () => {
    const readme = createAppReadme({
      ...INPUT,
      template: {
        ...INPUT.template,
        build: "esbuild web/main.tsx --outfile=public/app.js",
        codegen: "svc codegen --out web/svc-api.ts",
      },
      directories: ["functions", "public", "seed", "web"],
    });
    expect(readme).toContain("`npm run dev` builds the front end (`npm run build`)");
    expect(readme).toContain("open http://localhost:4321\nfor the page");
    expect(readme).toContain("| `web/` | the React front end;");
    expect(readme).toContain("run\n`npm run codegen` (`svc codegen --out web/svc-api.ts`)");
    expect(readme).toContain("| `public/` | the page svc serves at `/`");
    expect(readme).toContain("| `seed/` | sample rows");
    // The functions directory has its own row, never a second one.
    expect(readme.match(/\| `functions\/` \|/g)).toHaveLength(1);
    expect(readme).toContain("npm run build\nSVC_ADMIN_TOKEN=$(openssl rand -hex 64) npm start");
  });

  it("says how to run a second app beside the first", () => {
    expect(createAppReadme(INPUT)).toContain("`SVC_PORT=4325 npm run dev`");
  });

  it("speaks npm for an app on the registry's packages, and names pnpm's form", () => {
    const readme = createAppReadme(INPUT);
    expect(readme).toContain("```sh\nnpm install\nnpm run dev\n```");
    expect(readme).toContain("With pnpm the same is `pnpm install` and `pnpm dev`");
    expect(readme).not.toContain("EUNSUPPORTEDPROTOCOL");
  });

  // Regression: an app made from a checkout (link: dependencies) said
  // `npm install`, which stops with EUNSUPPORTEDPROTOCOL.
  it("speaks only pnpm for an app made from a checkout, and says why", () => {
    const readme = createAppReadme({
      ...INPUT,
      template: { ...INPUT.template, build: "esbuild web/main.tsx", seed: "svc seed" },
      directories: ["functions", "seed", "web"],
      checkout: { pnpm: "11.28.11" },
    });
    expect(readme).toContain("```sh\npnpm install\npnpm dev\n```");
    expect(readme).toContain("only pnpm installs (npm stops with `EUNSUPPORTEDPROTOCOL`)");
    expect(readme).toContain("write `npx --yes pnpm@11.28.11` where it\nsays `pnpm`");
    for (const command of [
      "pnpm build",
      "pnpm seed",
      "pnpm start",
      "pnpm test",
      "pnpm typecheck",
    ]) {
      expect(readme).toContain(`\`${command}\``);
    }
    expect(readme).not.toMatch(/(^|[^p])npm (install|run|start|test)/m);
    const unpinned = createAppReadme({ ...INPUT, checkout: { pnpm: undefined } });
    expect(unpinned).toContain("write `npx --yes pnpm` where");
  });

  // Regression: the shop started empty and its README said only that seed/ holds rows.
  it("gives a template with sample rows its seed step", () => {
    const readme = createAppReadme({
      ...INPUT,
      template: { ...INPUT.template, seed: "svc seed" },
      directories: ["functions", "seed"],
    });
    expect(readme).toContain("The app starts with no data.");
    expect(readme).toContain("```sh\nnpm run seed\n```");
    expect(readme).toContain(
      "| `seed/` | sample rows, each file a batch as `POST /api/batch` takes it: `npm run seed` loads them",
    );
    expect(createAppReadme(INPUT)).not.toContain("seed");
  });
});
