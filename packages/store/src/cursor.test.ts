import { describe, expect, it } from "vitest";
import { createCursorCodec } from "./cursor.js";

const position = { order: "title:desc", value: "a/b+c", id: "f".repeat(40) };

/** The text with one character at `at` (negative: from the end) replaced by another. */
function edit(text: string, at: number): string {
  const index = at < 0 ? text.length + at : at;
  const replacement = text[index] === "A" ? "B" : "A";
  return `${text.slice(0, index)}${replacement}${text.slice(index + 1)}`;
}

describe("page cursors", () => {
  const codec = createCursorCodec("s".repeat(64));
  const text = codec.encode("Todo", position);

  it("round-trip the order, value and id as signed base64url text", () => {
    expect(text).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(codec.decode("Todo", text)).toEqual(position);
  });

  it("are accepted by another codec with the same secret (another server)", () => {
    expect(createCursorCodec("s".repeat(64)).decode("Todo", text)).toEqual(position);
  });

  it("are accepted by every store of a process without a secret, and no other", () => {
    const first = createCursorCodec();
    const made = first.encode("Todo", position);
    expect(createCursorCodec().decode("Todo", made)).toEqual(position);
    expect(codec.decode("Todo", made)).toBeNull();
  });

  // Regression: cursors were unsigned base64 JSON, so an edited one was accepted.
  it.each([
    ["with an edited value", () => editedPayload(text)],
    ["with its first character changed", () => edit(text, 0)],
    ["with its signature's last character changed", () => edit(text, -1)],
    ["with its signature's first character changed", () => edit(text, -22)],
    ["truncated", () => text.slice(0, -1)],
    [
      "signed with another secret",
      () => createCursorCodec("t".repeat(64)).encode("Todo", position),
    ],
    ["made for another entity", () => codec.encode("List", position)],
    ["unsigned, as cursors used to be", () => text.slice(0, text.indexOf("."))],
  ])("reject a cursor %s", (_label, make) => {
    expect(codec.decode("Todo", make())).toBeNull();
  });

  it.each([
    ["not a string", 42],
    ["not base64url", "a+b/c=.AAAAAAAAAAAAAAAAAAAAAA"],
    ["empty", ""],
    ["too long", `${"A".repeat(9000)}.${"A".repeat(22)}`],
  ])("reject text that is %s", (_label, value) => {
    expect(codec.decode("Todo", value)).toBeNull();
  });
});

/** The cursor with its sort value changed and the old signature kept. */
function editedPayload(text: string): string {
  const [payload, mac] = text.split(".");
  const decoded = JSON.parse(Buffer.from(payload ?? "", "base64url").toString("utf8"));
  const changed = Buffer.from(JSON.stringify({ ...decoded, v: "zzz" })).toString("base64url");
  return `${changed}.${mac}`;
}
