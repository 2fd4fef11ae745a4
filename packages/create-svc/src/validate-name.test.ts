import { describe, expect, it } from "vitest";
import { suggestPackageName, validatePackageName } from "./validate-name.js";

describe("validatePackageName", () => {
  it.each(["my-app", "app2", "a", "svc.app", "my_app", "0-day", "x".repeat(214)])(
    "accepts %s",
    (name) => {
      expect(validatePackageName(name)).toBeUndefined();
    },
  );

  it.each([
    ["", /empty/],
    ["My-App", /lowercase/],
    ["my app", /only contain/],
    ["app!", /only contain/],
    ["@scope", /only contain/],
    [".hidden", /start with/],
    ["_private", /start with/],
    ["-dash", /start with/],
    ["node_modules", /reserved/],
    ["favicon.ico", /reserved/],
    ["http", /built-in/],
    ["x".repeat(215), /longer than 214/],
  ])("rejects %j", (name, problem) => {
    expect(validatePackageName(name)).toMatch(problem);
  });
});

describe("suggestPackageName", () => {
  it.each([
    ["My App", "my-app"],
    ["__Hello World!!", "hello-world"],
    ["ok-name", "ok-name"],
    ["!!!", "svc-app"],
    ["fs", "svc-app"],
  ])("turns %j into %j", (name, suggestion) => {
    expect(suggestPackageName(name)).toBe(suggestion);
    expect(validatePackageName(suggestion)).toBeUndefined();
  });
});
