/** One dispatched Server-Sent Event. */
export interface SSEEvent {
  /** The `event:` field; `"message"` when the event named none. */
  readonly event: string;
  /** The `data:` lines, joined with `\n`. */
  readonly data: string;
  /** The last event id seen on the stream so far (it carries over), `""` before any. */
  readonly lastEventId: string;
}

/**
 * An incremental parser of the `text/event-stream` format (the HTML
 * standard's "event stream interpretation"): feed it decoded text as it
 * arrives, in chunks of any size (a line or a CRLF may be split between
 * chunks), and it returns the events each chunk completes. Comments and
 * `retry:` are read and dropped; a `data`-less event is not dispatched.
 *
 * @example
 * const parser = new SSEParser();
 * parser.push("id: 7\ndata: {\"a\":1}\n"); // []
 * parser.push("\n"); // [{ event: "message", data: '{"a":1}', lastEventId: "7" }]
 */
export class SSEParser {
  #buffer = "";
  #started = false;
  #afterCR = false;
  #data: string[] = [];
  #event = "";
  #lastEventId = "";

  /** The last event id the stream set (kept across events, as `EventSource` keeps it). */
  get lastEventId(): string {
    return this.#lastEventId;
  }

  /** Consumes `chunk` and returns the events it completed. */
  push(chunk: string): SSEEvent[] {
    let text = chunk;
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.startsWith("\uFEFF")) text = text.slice(1);
    }
    // A CR that ended the previous chunk already ended its line: a LF right after belongs to it.
    if (this.#afterCR && text.startsWith("\n")) text = text.slice(1);
    this.#afterCR = false;
    this.#buffer += text;
    const events: SSEEvent[] = [];
    for (;;) {
      const end = this.#buffer.search(/[\r\n]/);
      if (end === -1) break;
      const line = this.#buffer.slice(0, end);
      let next = end + 1;
      if (this.#buffer[end] === "\r") {
        if (end + 1 === this.#buffer.length) this.#afterCR = true;
        else if (this.#buffer[end + 1] === "\n") next = end + 2;
      }
      this.#buffer = this.#buffer.slice(next);
      const event = this.#line(line);
      if (event !== null) events.push(event);
    }
    return events;
  }

  #line(line: string): SSEEvent | null {
    if (line === "") return this.#dispatch();
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "data":
        this.#data.push(value);
        break;
      case "event":
        this.#event = value;
        break;
      case "id":
        if (!value.includes("\0")) this.#lastEventId = value;
        break;
      default:
        // `retry:` and unknown fields: the client keeps its own reconnect schedule.
        break;
    }
    return null;
  }

  #dispatch(): SSEEvent | null {
    const data = this.#data;
    const event = this.#event;
    this.#data = [];
    this.#event = "";
    if (data.length === 0) return null;
    return {
      event: event === "" ? "message" : event,
      data: data.join("\n"),
      lastEventId: this.#lastEventId,
    };
  }
}
