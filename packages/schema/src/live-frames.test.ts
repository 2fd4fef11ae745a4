import { describe, expect, it } from "vitest";
import { parseServerFrame } from "./live-frames.js";

// The one reader of server frames (the client's WebSocket and SSE
// transports use it): what it admits and what it turns away.

describe("parseServerFrame", () => {
  it.each([
    ['{"type":"snapshot","id":"s","rows":[{"id":"r1","title":"a"}],"cursor":"3"}'],
    ['{"type":"change","id":"s","op":"insert","row":{"id":"r1"},"rowId":"r1","cursor":"4"}'],
    ['{"type":"change","id":"s","op":"remove","rowId":"r1","cursor":"5"}'],
    ['{"type":"result","id":"q","value":null,"cursor":"6"}'],
    ['{"type":"error","id":"s","error":{"code":"RESYNC_REQUIRED","message":"Reload."}}'],
    ['{"type":"error","error":{"code":"INVALID_FRAME","message":"Bad."}}'],
    ['{"type":"pong"}'],
  ])("reads %s", (text) => {
    expect(parseServerFrame(text)).toEqual(JSON.parse(text));
  });

  it.each([
    ["not JSON", "{"],
    ["not an object", "[1]"],
    ["an unknown type", '{"type":"hello"}'],
    ["a snapshot row without id", '{"type":"snapshot","id":"s","rows":[{}],"cursor":"1"}'],
    ["a numeric cursor", '{"type":"snapshot","id":"s","rows":[],"cursor":1}'],
    ["an unknown op", '{"type":"change","id":"s","op":"upsert","rowId":"r","cursor":"1"}'],
    ["a result without value", '{"type":"result","id":"q","cursor":"1"}'],
    ["an error without code", '{"type":"error","error":{"message":"x"}}'],
  ])("turns away %s", (_what, text) => {
    expect(parseServerFrame(text)).toBeNull();
  });
});
