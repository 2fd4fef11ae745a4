import { existsSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { templateEntrySchema } from "./schemas.js";
import { listTemplates, SVC_REPOSITORY_URL, svcTemplates } from "./templates.js";

const examplesDir = fileURLToPath(new URL("../../../examples/", import.meta.url));

describe("svcTemplates", () => {
  it.each(svcTemplates.map((entry) => [entry.template, entry] as const))(
    "%s is a real example app with a valid entry",
    (template, entry) => {
      expect(existsSync(`${examplesDir}${template}/svc.json`)).toBe(true);
      expect(templateEntrySchema.parse(entry)).toEqual(entry);
      expect(entry.command).toBe(`npm create svc@latest my-app -- --template ${template}`);
      expect(entry.source).toBe(`${SVC_REPOSITORY_URL}/tree/main/examples/${template}`);
      expect(entry.shows.length).toBeGreaterThan(0);
    },
  );

  it("lists every example app that has a manifest", () => {
    const examples = readdirSync(examplesDir).filter((name) =>
      existsSync(`${examplesDir}${name}/svc.json`),
    );
    expect(svcTemplates.map((entry) => entry.template).sort()).toEqual(examples.sort());
  });

  it("includes the default and todo templates", () => {
    expect(svcTemplates.map((entry) => entry.template)).toEqual(
      expect.arrayContaining(["default", "todo"]),
    );
  });
});

describe("listTemplates", () => {
  it.each([
    [undefined, ["default", "todo"]],
    ["", ["default", "todo"]],
    ["   ", ["default", "todo"]],
    ["todo", ["todo"]],
    ["TODO", ["todo"]],
    ["Default starter", ["default"]],
    ["Note entity", ["default"]],
    ["enum", ["todo"]],
    ["Row Policies", ["default", "todo"]],
    ["mutation action", ["todo"]],
    ["quokka", []],
  ])("filters by %j", (query, expected) => {
    expect(listTemplates(query).map((entry) => entry.template)).toEqual(expected);
  });

  it("hands out copies", () => {
    const [first] = listTemplates();
    first?.shows.push("changed");
    expect(listTemplates()[0]?.shows).not.toContain("changed");
  });
});
