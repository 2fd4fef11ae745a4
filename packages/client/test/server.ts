import { createHmac } from "node:crypto";
import { resolve } from "node:path";
import { parseConfig, type RunningServer, startServer } from "@svc/server";
import { type ClientOptions, createClient, type SvcClient } from "../src/index.js";

/** The default example app: User, List and Todo with an owner, plus its functions. */
export const TODO_MANIFEST = resolve(import.meta.dirname, "../../../examples/todo/svc.json");

export const ADMIN_TOKEN = "c".repeat(128);

/** A running server that closes itself at the end of its `await using` scope. */
export type TestServer = RunningServer & { [Symbol.asyncDispose](): Promise<void> };

/**
 * Boots the real server in process: ephemeral loopback port, the todo
 * manifest on in-memory SQLite, dev mode (codes come back as `dev_code`)
 * with the rate limiters off, and a JWT secret. `env` adds or overrides.
 */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const server = await startServer(
    parseConfig({
      SVC_PORT: "0",
      SVC_HOST: "127.0.0.1",
      SVC_MANIFEST: TODO_MANIFEST,
      SVC_DB_PATH: ":memory:",
      SVC_ADMIN_TOKEN: ADMIN_TOKEN,
      SVC_DEV_MODE: "true",
      SVC_RATE_LIMIT: "off",
      SVC_JWT_SECRET: "s".repeat(64),
      SVC_JWT_ISSUER: "svc-client-test",
      ...env,
    }),
    // 5xx answers the tests expect (501 PAYMENT_NOT_CONFIGURED) would be logged otherwise.
    { onInternalError: () => undefined },
  );
  return Object.assign(server, {
    [Symbol.asyncDispose]: () => server.close({ drainSeconds: 0 }),
  });
}

/** Distinct email addresses per test file: `label-1@example.com`, `label-2@...`. */
export function emailSequence(label: string): () => string {
  let next = 0;
  return () => {
    next += 1;
    return `${label}-${next}@example.com`;
  };
}

/** A client of `server`. */
export function clientOf(
  server: { url: string },
  options: Omit<ClientOptions, "url"> = {},
): SvcClient {
  return createClient({ url: server.url, ...options });
}

/** A client signed in with a fresh magic-code user. */
export async function signedInClient(
  server: { url: string },
  email: string,
): Promise<{ client: SvcClient; userId: string }> {
  const client = clientOf(server);
  const sent = await client.auth.sendMagicCode(email);
  const result = await client.auth.verifyMagicCode(email, sent.dev_code ?? "");
  if (!("token" in result)) throw new Error("unexpected second factor");
  return { client, userId: result.user_id };
}

function base32Decode(text: string): Buffer {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of text) {
    value = (value << 5) | alphabet.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The RFC 6238 code (SHA-1, 6 digits, 30 s) of a base32 secret at `now`. */
export function totpCode(secret: string, now: number = Date.now()): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(now / 1000 / 30)));
  const hmac = createHmac("sha1", base32Decode(secret)).update(counter).digest();
  const offset = (hmac[hmac.length - 1] ?? 0) & 0x0f;
  const binary = hmac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 1_000_000).padStart(6, "0");
}
