import { type AuthContext, adminAuth, createAuthContext } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { composeModules, type ModuleBearerResolver, type SvcModule } from "../src/index.js";

const info = { ip: undefined, userAgent: undefined, cookie: undefined };
const user = createAuthContext({ userId: "u1", via: "session" });

function recorder<App>(
  calls: string[],
  name: string,
  extra: Partial<SvcModule<App>> = {},
): SvcModule<App> {
  return {
    name,
    start: () => {
      calls.push(`start ${name}`);
    },
    reset: async () => {
      calls.push(`reset ${name}`);
    },
    close: async () => {
      calls.push(`close ${name}`);
    },
    ...extra,
  };
}

describe("composeModules", () => {
  it("keeps list order for migrations, routes, resolvers, start and reset, and closes last first", async () => {
    const calls: string[] = [];
    const composed = composeModules<string[]>([
      recorder(calls, "a", {
        migrations: [{ owner: "a", migrations: [] }],
        routes: (app) => app.push("GET /a"),
      }),
      recorder(calls, "b", { migrations: [{ owner: "b", migrations: [] }] }),
      recorder(calls, "c", { routes: (app) => app.push("GET /c") }),
    ]);
    expect(composed.migrations.map((m) => m.owner)).toEqual(["a", "b"]);
    const app: string[] = [];
    composed.routes(app);
    expect(app).toEqual(["GET /a", "GET /c"]);
    await composed.start();
    await composed.reset();
    await composed.close();
    expect(calls).toEqual([
      "start a",
      "start b",
      "start c",
      "reset a",
      "reset b",
      "reset c",
      "close c",
      "close b",
      "close a",
    ]);
  });

  it("refuses a module listed twice", () => {
    expect(() => composeModules([{ name: "x" }, { name: "x" }])).toThrow(/listed twice/);
  });

  it("closes every module even when one fails, and rethrows the first failure", async () => {
    const calls: string[] = [];
    const composed = composeModules([
      recorder(calls, "a"),
      {
        name: "b",
        close: async () => {
          throw new Error("b failed");
        },
      },
      recorder(calls, "c"),
    ]);
    await expect(composed.close()).rejects.toThrow("b failed");
    expect(calls).toEqual(["close c", "close a"]);
  });

  it("applies every decorator to resolved users, in module order, and leaves the rest alone", async () => {
    const seen: string[] = [];
    const byToken: ModuleBearerResolver = (token) =>
      token === "admin" ? adminAuth : token === "user" ? Promise.resolve(user) : null;
    const composed = composeModules([
      { name: "auth", resolvers: [byToken] },
      {
        name: "billing",
        decorateCaller: async (caller: AuthContext) => {
          seen.push(`billing ${caller.userId}`);
          return { ...caller, entitlements: ["pro"] };
        },
      },
      {
        name: "audit",
        decorateCaller: async (caller: AuthContext) => {
          seen.push(`audit ${caller.entitlements.join()}`);
          return caller;
        },
      },
    ]);
    const [resolve] = composed.resolvers;
    if (resolve === undefined) throw new Error("no resolver");
    // Not this resolver's kind: a synchronous null, no promise to wait on.
    expect(resolve("other", info)).toBeNull();
    // A caller without a user is returned as it is, synchronously.
    expect(resolve("admin", info)).toBe(adminAuth);
    expect(await resolve("user", info)).toMatchObject({ userId: "u1", entitlements: ["pro"] });
    expect(seen).toEqual(["billing u1", "audit pro"]);
    expect(await composed.decorate(null)).toBeNull();
  });

  it("waits for every module to be ready and fails when one is not", async () => {
    const composed = composeModules([
      { name: "a", ready: async () => undefined },
      {
        name: "b",
        ready: async () => {
          throw new Error("b not ready");
        },
      },
    ]);
    await expect(composed.ready()).rejects.toThrow("b not ready");
  });
});
