import { describe, expect, it } from "vitest";
import { docMarkdownURL, docPageURL, normalizeBaseURL } from "./urls.js";

describe("normalizeBaseURL", () => {
  it.each([
    ["https://svc.example.com", "https://svc.example.com"],
    ["https://svc.example.com/", "https://svc.example.com"],
    ["http://localhost:4321//", "http://localhost:4321"],
    ["https://example.com/svc/", "https://example.com/svc"],
    ["HTTPS://Example.COM", "https://example.com"],
  ])("%s -> %s", (input, expected) => {
    expect(normalizeBaseURL(input)).toBe(expected);
  });

  it.each([
    "svc.example.com",
    "",
    "ftp://example.com",
    "https://example.com/?a=1",
    "https://example.com/#x",
    "https://user:pw@example.com",
  ])("rejects %j with INVALID_OPTIONS", (input) => {
    expect(() => normalizeBaseURL(input)).toThrow(
      expect.objectContaining({ code: "INVALID_OPTIONS", expose: false }),
    );
  });
});

describe("page URLs", () => {
  it("builds the human page and the markdown read URL", () => {
    expect(docPageURL("https://x.dev", "auth/api-keys")).toBe("https://x.dev/docs/auth/api-keys");
    expect(docMarkdownURL("https://x.dev", "auth/api-keys")).toBe(
      "https://x.dev/agent/v1/docs/read?path=auth/api-keys",
    );
  });
});
