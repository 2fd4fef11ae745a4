import { describe, expect, it } from "vitest";
import { readCookie } from "./read-cookie.js";

describe("readCookie", () => {
  it.each([
    ["svc_session=svc_a", "svc_a"],
    ["theme=dark; svc_session=svc_a", "svc_a"],
    [" \tsvc_session = svc_a \t; x=y", "svc_a"],
    ["svc_session=svc_a; svc_session=svc_b", "svc_a"],
    ["flag; svc_session=svc_a", "svc_a"],
    ["svc_session=a%20b", "a b"],
    ["svc_session=a%zz", "a%zz"],
    ["svc_session=", undefined],
    ["svc_session_x=svc_a", undefined],
    ["x=svc_session", undefined],
    ["", undefined],
  ])("reads %j as %j", (header, expected) => {
    expect(readCookie(header, "svc_session")).toBe(expected);
  });

  it("reads nothing without a header", () => {
    expect(readCookie(undefined, "svc_session")).toBeUndefined();
  });
});
