import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** What the fake model was sent. */
export interface FakeModelRequest {
  readonly path: string;
  readonly authorization: string | null;
  readonly body: { model?: string; messages?: { role: string; content: string }[] };
}

/**
 * How the fake answers the next requests: `reply` (a deterministic reply),
 * `fail` (500), `empty` (a completion without content), `hang` (never
 * answers, for timeouts), `text` (200 with a body that is not JSON),
 * `huge` (a 2 MiB completion, past the client's cap).
 */
export type FakeModelMode = "reply" | "fail" | "empty" | "hang" | "text" | "huge";

/** A local OpenAI-compatible `/chat/completions` endpoint for tests. */
export interface FakeModel extends AsyncDisposable {
  /** The base URL to put in `AI_CHAT_MODEL_URL` (ends in `/v1`). */
  readonly url: string;
  readonly requests: FakeModelRequest[];
  mode: FakeModelMode;
  /**
   * Holds every answer from now on until the returned function is called,
   * so a test can look at what a page shows while the model is thinking.
   */
  hold(): () => void;
}

/** The fake's reply to a list of messages: their count and the last one's content. */
export function fakeReply(messages: readonly { content: string }[]): string {
  return `Reply to "${messages.at(-1)?.content ?? ""}" after ${messages.length} messages`;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function answer(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

/** Starts the fake on 127.0.0.1 and an ephemeral port. */
export async function startFakeModel(): Promise<FakeModel> {
  const requests: FakeModelRequest[] = [];
  const fake = { mode: "reply" as FakeModelMode };
  let held: Promise<void> = Promise.resolve();
  const hold = (): (() => void) => {
    let release = () => {};
    held = new Promise<void>((resolve) => {
      release = resolve;
    });
    return release;
  };
  const server = createServer(async (request, response) => {
    const body = JSON.parse(await readBody(request)) as FakeModelRequest["body"];
    await held;
    requests.push({
      path: request.url ?? "",
      authorization: request.headers.authorization ?? null,
      body,
    });
    if (request.method !== "POST" || request.url !== "/v1/chat/completions") {
      return answer(response, 404, { error: { message: "not found" } });
    }
    switch (fake.mode) {
      case "hang":
        return; // never answers; the caller's timeout ends it
      case "fail":
        return answer(response, 500, { error: { message: "the fake model is down" } });
      case "text":
        response.writeHead(200, { "content-type": "text/plain" });
        return response.end("upstream proxy says hello");
      case "huge":
        return answer(response, 200, {
          choices: [{ message: { role: "assistant", content: "x".repeat(2 * 1024 * 1024) } }],
        });
      case "empty":
        return answer(response, 200, {
          choices: [{ message: { role: "assistant", content: "  " } }],
        });
      case "reply":
        return answer(response, 200, {
          id: `chatcmpl-${requests.length}`,
          object: "chat.completion",
          model: body.model,
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: fakeReply(body.messages ?? []) },
              finish_reason: "stop",
            },
          ],
        });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    hold,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
