import { z } from "zod";

/** One chat message as the model endpoint sees it. */
export interface ChatTurn {
  readonly role: "system" | "user" | "assistant";
  readonly content: string;
}

/**
 * Which model answers, read from the environment on every call (so a
 * restart is not needed in tests, and nothing is cached between apps):
 *
 * - `AI_CHAT_MODEL_URL`: the base URL of an OpenAI-compatible API (the part
 *   before `/chat/completions`, e.g. `https://api.openai.com/v1` or
 *   `http://localhost:11434/v1`), or `echo` for the built-in echo model;
 * - `AI_CHAT_MODEL`: the model name sent in each request (required with a URL);
 * - `AI_CHAT_API_KEY`: sent as `Authorization: Bearer …` when set;
 * - `AI_CHAT_TIMEOUT_MS`: how long to wait for a reply, default 30000;
 * - `AI_CHAT_SYSTEM_PROMPT`: an optional system message sent first.
 */
export type ModelConfig =
  | { readonly kind: "echo" }
  | {
      readonly kind: "endpoint";
      readonly url: string;
      readonly model: string;
      readonly apiKey: string | null;
      readonly timeoutMs: number;
      readonly systemPrompt: string | null;
    };

/** The model's failures, with the code and status the caller of `ask` sees. */
export class ModelError extends Error {
  constructor(
    readonly code: "MODEL_NOT_CONFIGURED" | "MODEL_FAILED" | "MODEL_TIMEOUT",
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = "ModelError";
  }
}

/** The longest reply stored; a longer one is refused rather than cut. */
export const MAX_REPLY_CHARS = 20_000;
/** The most the endpoint's answer may weigh before it is abandoned. */
const MAX_RESPONSE_BYTES = 1_048_576;

const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? null : value.trim()));

const endpointEnv = z.object({
  AI_CHAT_MODEL_URL: z.url({ protocol: /^https?$/ }),
  AI_CHAT_MODEL: z.string().trim().min(1),
  AI_CHAT_API_KEY: optionalText,
  AI_CHAT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  AI_CHAT_SYSTEM_PROMPT: optionalText,
});

/** Reads the model settings, or throws `MODEL_NOT_CONFIGURED` naming what is missing. */
export function readModelConfig(env: NodeJS.ProcessEnv = process.env): ModelConfig {
  const url = env.AI_CHAT_MODEL_URL?.trim() ?? "";
  if (url === "") {
    throw new ModelError(
      "MODEL_NOT_CONFIGURED",
      "No model is configured: set AI_CHAT_MODEL_URL (and AI_CHAT_MODEL), or AI_CHAT_MODEL_URL=echo to try the app.",
      501,
    );
  }
  if (url === "echo") return { kind: "echo" };
  const parsed = endpointEnv.safeParse({ ...env, AI_CHAT_MODEL_URL: url });
  if (!parsed.success) {
    const variable = String(parsed.error.issues[0]?.path[0] ?? "AI_CHAT_MODEL_URL");
    throw new ModelError(
      "MODEL_NOT_CONFIGURED",
      `The model setting ${variable} is missing or invalid.`,
      501,
    );
  }
  const settings = parsed.data;
  return {
    kind: "endpoint",
    url: settings.AI_CHAT_MODEL_URL.replace(/\/+$/, ""),
    model: settings.AI_CHAT_MODEL,
    apiKey: settings.AI_CHAT_API_KEY,
    timeoutMs: settings.AI_CHAT_TIMEOUT_MS,
    systemPrompt: settings.AI_CHAT_SYSTEM_PROMPT,
  };
}

const completion = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string() }) })).min(1),
});

/**
 * The model's reply to `history` (oldest first): `POST {url}/chat/completions`
 * with `{model, messages}`, answered by the first choice's message content.
 * Throws a `ModelError`: `MODEL_TIMEOUT` past the timeout, `MODEL_FAILED` for
 * an unreachable endpoint, an error status, or an answer without a usable
 * reply (empty, malformed, or longer than `MAX_REPLY_CHARS`).
 */
export async function askModel(config: ModelConfig, history: readonly ChatTurn[]): Promise<string> {
  if (config.kind === "echo") return echoReply(history);
  const messages =
    config.systemPrompt === null
      ? history
      : [{ role: "system", content: config.systemPrompt }, ...history];
  const signal = AbortSignal.timeout(config.timeoutMs);
  let text: string;
  try {
    const response = await fetch(`${config.url}/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(config.apiKey !== null && { authorization: `Bearer ${config.apiKey}` }),
      },
      body: JSON.stringify({ model: config.model, messages }),
      signal,
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new ModelError("MODEL_FAILED", `The model endpoint answered ${response.status}.`, 502);
    }
    text = await readCapped(response, MAX_RESPONSE_BYTES);
  } catch (error) {
    if (error instanceof ModelError) throw error;
    if (signal.aborted) {
      throw new ModelError(
        "MODEL_TIMEOUT",
        `The model did not answer within ${config.timeoutMs} ms.`,
        504,
      );
    }
    throw new ModelError("MODEL_FAILED", "The model endpoint could not be reached.", 502);
  }
  return replyOf(text);
}

function replyOf(text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ModelError(
      "MODEL_FAILED",
      "The model endpoint answered something other than JSON.",
      502,
    );
  }
  const parsed = completion.safeParse(body);
  const reply = parsed.success ? parsed.data.choices[0]?.message.content.trim() : undefined;
  if (reply === undefined || reply === "") {
    throw new ModelError("MODEL_FAILED", "The model endpoint answered without a reply.", 502);
  }
  if (reply.length > MAX_REPLY_CHARS) {
    throw new ModelError(
      "MODEL_FAILED",
      `The model's reply is longer than ${MAX_REPLY_CHARS} characters.`,
      502,
    );
  }
  return reply;
}

/**
 * The body as text, read chunk by chunk and abandoned (the stream cancelled)
 * once it passes `maxBytes`. A reader loop rather than `for await`, which
 * the DOM typings of `ReadableStream` do not declare.
 */
async function readCapped(response: Response, maxBytes: number): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new ModelError("MODEL_FAILED", "The model endpoint's answer is too large.", 502);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The built-in stand-in for local play: repeats the last message, and says so. */
function echoReply(history: readonly ChatTurn[]): string {
  const last = history.findLast((turn) => turn.role === "user");
  return `[echo model, not an AI] You said: ${last?.content ?? ""}`;
}
