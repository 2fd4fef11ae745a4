import { ConfigError } from "@svc/schema";
import { thrownBy } from "@svc/tooling/thrown";
import { describe, expect, it } from "vitest";
import { checkHeaderToken, parseHttpURL, readEnv, readEnvWithOverride } from "./env-values.js";

describe("readEnv", () => {
  it.each([
    [undefined, undefined],
    ["", undefined],
    ["   ", undefined],
    [" value\n", "value"],
  ])("reads %j as %j", (raw, expected) => {
    expect(readEnv({ X: raw }, "X")).toBe(expected);
  });
});

describe("readEnvWithOverride", () => {
  it.each([
    [
      { A: "a", G: "g" },
      { name: "A", value: "a" },
    ],
    [
      { A: "", G: "g" },
      { name: "G", value: "g" },
    ],
    [{ G: "g" }, { name: "G", value: "g" }],
    [{}, { name: "G", value: undefined }],
  ])("reads %j as %j", (env, expected) => {
    expect(readEnvWithOverride(env, "A", "G")).toEqual(expected);
  });

  it("names the requested variable when neither is set", () => {
    expect(readEnvWithOverride({}, "A", "G", "A")).toEqual({ name: "A", value: undefined });
  });
});

describe("parseHttpURL", () => {
  it.each(["http://127.0.0.1:8080/hook", "https://example.com/a?b=c"])("accepts %s", (value) => {
    expect(parseHttpURL("V", value).href).toBe(new URL(value).href);
  });

  it.each([
    ["not a url", "must be an absolute http:// or https:// URL"],
    ["/relative", "must be an absolute http:// or https:// URL"],
    ["ftp://example.com/", "must be an absolute http:// or https:// URL"],
    ["https://user:hunter2@example.com/", "must not contain a user name or password"],
  ])("refuses %s without echoing it", (value, message) => {
    const error = thrownBy(ConfigError, () => parseHttpURL("SVC_X", value));
    expect(error.variable).toBe("SVC_X");
    expect(error.message).toBe(`SVC_X: ${message}`);
    expect(error.message).not.toContain("hunter2");
  });
});

describe("checkHeaderToken", () => {
  it.each(["abc def", "abc\ndef", "abc\u0001"])("refuses %j without echoing it", (value) => {
    const error = thrownBy(ConfigError, () => checkHeaderToken("SVC_KEY", value));
    expect(error.variable).toBe("SVC_KEY");
    expect(error.message).not.toContain("abc");
  });

  it("returns a clean token", () => {
    expect(checkHeaderToken("SVC_KEY", "re_123.abc")).toBe("re_123.abc");
  });
});
