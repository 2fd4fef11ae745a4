import { describe, expect, it } from "vitest";
import { loadFixtureDocs } from "../test/helpers.js";
import { AgentDocsError } from "./errors.js";
import { normalizeSearchTerm } from "./search-index.js";

const BASE = "http://127.0.0.1:4321";

describe("normalizeSearchTerm", () => {
  it.each([
    ["Keys", "key"],
    ["policies", "policy"],
    ["exists", "exist"],
    ["access", "access"],
    ["status", "status"],
    ["JWT", "jwt"],
    ["the", null],
    ["How", null],
  ])("%s -> %s", (term, expected) => {
    expect(normalizeSearchTerm(term)).toBe(expected);
  });
});

describe("library.search", () => {
  it.each([
    ["api keys", "auth/api-keys"],
    ["API Keys", "auth/api-keys"],
    ["jwt", "auth/jwt"],
    ["policy exists", "policies/membership-checks"],
    ["policy language", "policies/language"],
    ["how do I write a policy", "policies/language"],
    ["polciy", "policies/language"],
    ["introduction", "getting-started/introduction"],
    ["getting-started", "getting-started/introduction"],
    ["manifest", "schema/manifest"],
    ["hs256 token", "auth/jwt"],
    ["revoke", "auth/api-keys"],
  ])("ranks %j first at %s", async (query, path) => {
    const library = await loadFixtureDocs();
    expect(library.search(query, 10, BASE)[0]?.path).toBe(path);
  });

  it("matches by prefix from three characters", async () => {
    const library = await loadFixtureDocs();
    expect(library.search("membe", 10, BASE)[0]?.path).toBe("policies/membership-checks");
    expect(library.search("jw", 10, BASE)).toEqual([]);
  });

  it("returns nothing for words no page contains", async () => {
    const library = await loadFixtureDocs();
    expect(library.search("zebra quokka", 10, BASE)).toEqual([]);
    expect(library.search("the of and", 10, BASE)).toEqual([]);
  });

  it("answers at most limit entries, the best ones first", async () => {
    const library = await loadFixtureDocs();
    const all = library.search("policy auth key", 50, BASE);
    expect(all.length).toBeGreaterThan(2);
    expect(library.search("policy auth key", 2, BASE)).toEqual(all.slice(0, 2));
    expect(library.search("policy auth key", 1, BASE)).toEqual(all.slice(0, 1));
  });

  it("returns full page entries", async () => {
    const library = await loadFixtureDocs();
    expect(library.search("jwt", 1, BASE)).toEqual([
      {
        title: "JWT exchange",
        url: `${BASE}/docs/auth/jwt`,
        markdownUrl: `${BASE}/agent/v1/docs/read?path=auth/jwt`,
        path: "auth/jwt",
        summary: "Trade a session or an API key for a short-lived HS256 token.",
      },
    ]);
  });

  it.each([
    ["an empty query", "", 10],
    ["a blank query", "   ", 10],
    ["limit 0", "jwt", 0],
    ["limit 51", "jwt", 51],
    ["a fractional limit", "jwt", 2.5],
    ["a NaN limit", "jwt", Number.NaN],
  ])("rejects %s with INVALID_QUERY", async (_name, query, limit) => {
    const library = await loadFixtureDocs();
    expect(() => library.search(query, limit, BASE)).toThrow(
      expect.objectContaining({ code: "INVALID_QUERY" }),
    );
    expect(() => library.search(query, limit, BASE)).toThrow(AgentDocsError);
  });
});
