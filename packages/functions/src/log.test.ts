import { describe, expect, it } from "vitest";
import { createFunctionLog, type LogSink } from "./log.js";

function capture(): { sink: LogSink; lines: [string, object, string][] } {
  const lines: [string, object, string][] = [];
  const at =
    (level: string) =>
    (fields: object, message: string): void => {
      lines.push([level, fields, message]);
    };
  return {
    lines,
    sink: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") },
  };
}

describe("ctx.log", () => {
  it.each(["debug", "info", "warn", "error"] as const)(
    "writes %s lines with the function name and the fields",
    (level) => {
      const { sink, lines } = capture();
      createFunctionLog(sink, "sendInvite")[level]("sent", { inviteId: "i1" });
      expect(lines).toEqual([[level, { inviteId: "i1", fn: "sendInvite" }, "sent"]]);
    },
  );

  it("keeps the function name when a field tries to replace it", () => {
    const { sink, lines } = capture();
    createFunctionLog(sink, "real").info("x", { fn: "other" });
    expect(lines).toEqual([["info", { fn: "real" }, "x"]]);
  });

  it("writes a line without fields and turns a non-string message into text", () => {
    const { sink, lines } = capture();
    const log = createFunctionLog(sink, "f");
    log.warn("plain");
    log.info(42 as unknown as string);
    expect(lines).toEqual([
      ["warn", { fn: "f" }, "plain"],
      ["info", { fn: "f" }, "42"],
    ]);
  });
});
