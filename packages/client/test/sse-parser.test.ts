import { describe, expect, it } from "vitest";
import { SSEParser } from "../src/index.js";

/** Feeds `chunks` in order and returns every event dispatched. */
function parse(chunks: readonly string[]) {
  const parser = new SSEParser();
  return chunks.flatMap((chunk) => parser.push(chunk));
}

const stream =
  'retry: 2000\n\nid: 4\ndata: {"type":"snapshot"}\n\n: keepalive\n\nid: 5\ndata: {"type":"change"}\n\n';

describe("SSEParser", () => {
  it("reads the server's stream: retry and comments dropped, ids carried", () => {
    expect(parse([stream])).toEqual([
      { event: "message", data: '{"type":"snapshot"}', lastEventId: "4" },
      { event: "message", data: '{"type":"change"}', lastEventId: "5" },
    ]);
  });

  it.each([1, 2, 3, 7])("gives the same events for chunks of %i characters", (size) => {
    const chunks: string[] = [];
    for (let at = 0; at < stream.length; at += size) chunks.push(stream.slice(at, at + size));
    expect(parse(chunks)).toEqual(parse([stream]));
  });

  it.each([
    ["LF", "\n"],
    ["CRLF", "\r\n"],
    ["CR", "\r"],
  ])("accepts %s line endings, even split between chunks", (_name, eol) => {
    const text = `id: 1${eol}data: a${eol}data: b${eol}${eol}`;
    const expected = [{ event: "message", data: "a\nb", lastEventId: "1" }];
    expect(parse([text])).toEqual(expected);
    for (let at = 1; at < text.length; at += 1) {
      expect(parse([text.slice(0, at), text.slice(at)])).toEqual(expected);
    }
  });

  it("drops a leading BOM, keeps event names, and a field without a colon", () => {
    expect(parse(["\uFEFFevent: ping\ndata\n\n"])).toEqual([
      { event: "ping", data: "", lastEventId: "" },
    ]);
  });

  it("does not dispatch an event without data; an id with NUL is ignored", () => {
    expect(parse(["id: 9\n\nid: 1\u00002\ndata: x\n\n"])).toEqual([
      { event: "message", data: "x", lastEventId: "9" },
    ]);
  });

  it("keeps only one leading space of a value and a colon inside it", () => {
    expect(parse(["data:  two spaces: yes\n\n"])).toEqual([
      { event: "message", data: " two spaces: yes", lastEventId: "" },
    ]);
  });

  it("holds an unfinished event until its blank line comes", () => {
    const parser = new SSEParser();
    expect(parser.push("data: partial")).toEqual([]);
    expect(parser.push("\n")).toEqual([]);
    expect(parser.push("\n")).toEqual([{ event: "message", data: "partial", lastEventId: "" }]);
  });
});
