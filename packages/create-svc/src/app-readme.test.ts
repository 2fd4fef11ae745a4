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
});
