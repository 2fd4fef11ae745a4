import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkoutLinks } from "../src/checkout.js";
import { tempDir } from "./helpers.js";

function write(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

/** A checkout with @svc/server (two bins), @svc/functions and @svc/client, built unless `unbuilt`. */
function fakeCheckout(root: string, unbuilt: readonly string[] = []): void {
  const packages: {
    dir: string;
    json: {
      name: string;
      main: string;
      bin?: Record<string, string>;
      peerDependencies?: Record<string, string>;
    };
  }[] = [
    {
      dir: "apps/server",
      json: {
        name: "@svc/server",
        main: "./dist/index.js",
        bin: { svc: "./dist/cli.js", "svc-server": "./dist/main.js" },
      },
    },
    { dir: "packages/functions", json: { name: "@svc/functions", main: "./dist/index.js" } },
    {
      dir: "packages/client",
      json: { name: "@svc/client", main: "./dist/index.js", peerDependencies: { react: ">=18" } },
    },
  ];
  for (const { dir, json } of packages) {
    write(join(root, dir, "package.json"), JSON.stringify(json));
    const built = [json.main, ...Object.values(json.bin ?? {})];
    for (const file of built) {
      if (!unbuilt.includes(`${dir}/${file.replace("./", "")}`)) write(join(root, dir, file), "");
    }
  }
  write(join(root, "packages/not-a-package/README.md"), "");
}

describe("checkoutLinks", () => {
  it("links each @svc dependency to its package in the checkout, and nothing else", async () => {
    // @svc/client has a peer (react): a file: copy, so the app's react is the only one.
    using temp = tempDir();
    fakeCheckout(temp.path);
    expect(await checkoutLinks(temp.path, ["@svc/client", "@svc/server", "react", "zod"])).toEqual({
      "@svc/client": `file:${join(temp.path, "packages/client")}`,
      "@svc/server": `link:${join(temp.path, "apps/server")}`,
    });
  });

  it("refuses a directory without @svc/server", async () => {
    using temp = tempDir();
    await expect(checkoutLinks(temp.path, ["@svc/server"])).rejects.toMatchObject({
      code: "INVALID_CHECKOUT",
      message: expect.stringContaining("is not a checkout of the svc repository"),
    });
  });

  it("refuses a dependency the checkout does not have", async () => {
    using temp = tempDir();
    fakeCheckout(temp.path);
    await expect(checkoutLinks(temp.path, ["@svc/server", "@svc/nope"])).rejects.toMatchObject({
      code: "INVALID_CHECKOUT",
      message: expect.stringContaining("@svc/nope"),
    });
  });

  it.each([
    ["a main entry", "packages/client/dist/index.js", "@svc/client"],
    ["a bin", "apps/server/dist/main.js", "@svc/server"],
  ])("refuses a package whose %s is not built", async (_case, missing, name) => {
    using temp = tempDir();
    fakeCheckout(temp.path, [missing]);
    await expect(checkoutLinks(temp.path, ["@svc/server", "@svc/client"])).rejects.toMatchObject({
      code: "INVALID_CHECKOUT",
      message: expect.stringMatching(new RegExp(`^${name} in .* is not built`)),
    });
  });
});
