import { describe, expect, it } from "vitest";
import { editDistance, formatIssues, locate, nearest } from "./manifest-issues.js";

describe("nearest", () => {
  it("finds a typo's intended word: a missing, an extra, a wrong and a swapped letter", () => {
    const kinds = ["string", "int", "float", "bool", "datetime", "json", "id", "enum", "file"];
    expect(nearest("strng", kinds)).toBe("string");
    expect(nearest("floatt", kinds)).toBe("float");
    expect(nearest("jsan", kinds)).toBe("json");
    expect(nearest("dateitme", kinds)).toBe("datetime");
    expect(nearest("Bool", kinds)).toBe("bool");
  });

  it("suggests nothing when every candidate is far, or for the word itself", () => {
    expect(nearest("text", ["string", "int"])).toBeUndefined();
    expect(nearest("string", ["string"])).toBeUndefined();
  });

  it("counts edits case-insensitively, a swap as one", () => {
    expect(editDistance("abc", "abc")).toBe(0);
    expect(editDistance("abc", "acb")).toBe(1);
    expect(editDistance("Todo", "todo")).toBe(0);
    expect(editDistance("", "abc")).toBe(3);
  });
});

describe("locate", () => {
  const input = {
    entities: [{ name: "Todo", fields: [{ name: "title" }, {}], indexes: [{ name: "by_x" }] }],
    policies: [{ name: "mine" }],
    rooms: [{}],
  };

  it("names entities, fields, indexes, policies and rooms as written", () => {
    expect(locate(input, ["entities", 0, "fields", 0, "type"]).where).toBe("Todo.title");
    expect(locate(input, ["entities", 0, "fields", 1, "type"]).where).toBe("Todo.fields[1]");
    expect(locate(input, ["entities", 0, "indexes", 0, "fields", 0]).where).toBe("Todo index by_x");
    expect(locate(input, ["policies", 0, "entity"]).where).toBe('policy "mine"');
    expect(locate(input, ["rooms", 0, "join"]).where).toBe("rooms[0]");
    expect(locate(input, ["auth", "org", "entity"]).where).toBe("auth.org.entity");
  });
});

describe("formatIssues", () => {
  it("lists one problem a line, with where, what and the path", () => {
    expect(
      formatIssues([
        { path: "entities[0].fields[0].type", where: "Todo.title", message: "unknown type" },
      ]),
    ).toBe(
      "Invalid manifest (1 problem):\n  Todo.title: unknown type (entities[0].fields[0].type)",
    );
  });
});
