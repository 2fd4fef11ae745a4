import { describe, expect, it } from "vitest";
import { parseFrontMatter } from "./front-matter.js";

describe("parseFrontMatter", () => {
  it("splits plain, quoted and folded values from the body", () => {
    const parsed = parseFrontMatter(
      [
        "---",
        "",
        "title: Plain value: with a colon",
        "# a comment",
        `summary: "Double \\"quoted\\""`,
        "other: 'it''s'",
        "folded: >",
        "  first line",
        "  second line",
        "---",
        "# Body",
        "",
      ].join("\n"),
    );
    expect(parsed.attributes).toEqual({
      title: "Plain value: with a colon",
      summary: 'Double "quoted"',
      other: "it's",
      folded: "first line second line",
    });
    expect(parsed.body).toBe("# Body\n");
  });

  it("handles a BOM and CRLF line ends", () => {
    const parsed = parseFrontMatter("\uFEFF---\r\ntitle: Windows\r\n---\r\nbody\r\n");
    expect(parsed).toEqual({ attributes: { title: "Windows" }, body: "body\n" });
  });

  it("reads a file without front matter as all body", () => {
    expect(parseFrontMatter("# Just markdown\n")).toEqual({
      attributes: {},
      body: "# Just markdown\n",
    });
  });

  it.each([
    ["an unclosed block", "---\ntitle: x\n", /never closed/],
    ["a line that is not key: value", "---\njust text\n---\n", /line 2: expected "key: value"/],
    ["a repeated key", "---\ntitle: a\ntitle: b\n---\n", /line 3: "title" is given twice/],
    ["a broken double-quoted value", '---\ntitle: "a\\q"\n---\n', /line 2: the double-quoted/],
  ])("rejects %s", (_name, source, message) => {
    expect(() => parseFrontMatter(source)).toThrow(message);
  });
});
