import { describe, expect, it } from "vitest";
import { parseMailbox } from "./mailbox.js";

describe("parseMailbox", () => {
  it.each([
    ["auth@example.com", { address: "auth@example.com" }],
    ["  auth@example.com  ", { address: "auth@example.com" }],
    ["no-reply@localhost", { address: "no-reply@localhost" }],
    ["Example <auth@example.com>", { address: "auth@example.com", name: "Example" }],
    ["Example Team<auth@example.com>", { address: "auth@example.com", name: "Example Team" }],
    ['"Example, Inc." <auth@example.com>', { address: "auth@example.com", name: "Example, Inc." }],
  ])("parses %s", (value, expected) => {
    expect(parseMailbox(value)).toEqual(expected);
  });

  it.each([
    "",
    "example.com",
    "auth@",
    "@example.com",
    "a b@example.com",
    "<auth@example.com>",
    "Example <auth@example.com",
    "Example <not an address>",
    "Example <a@b.c> <d@e.f>",
    "a@b.c, d@e.f",
    "auth@example.com\r\nBcc: victim@example.com",
    "Example\n <auth@example.com>",
    `${"a".repeat(250)}@example.com`,
  ])("refuses %j", (value) => {
    expect(parseMailbox(value)).toBeUndefined();
  });
});
