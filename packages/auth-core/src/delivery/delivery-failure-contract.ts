import { closeFakeServers, refusedURL, startFakeServer } from "@svc/tooling/http-server";
import { afterEach, describe, expect, it } from "vitest";
import { AuthError } from "../errors.js";

/** How the contract reaches one transport. */
export interface DeliveryTarget {
  /** Builds the transport against `baseURL` and sends one message through it. */
  deliver(input: { baseURL: string; apiKey: string; timeoutMs: number }): Promise<void>;
  /** The message the rejection must carry. */
  readonly message: string;
  /** The code the rejection must carry. Default `EMAIL_SEND_FAILED`. */
  readonly code?: string;
}

const API_KEY = "sk_live_contract_SECRET_4f9a";
const PROVIDER_TEXT = "provider detail: mailbox quota exceeded";

async function failureOf(promise: Promise<void>): Promise<AuthError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(AuthError);
  return error as AuthError;
}

function messagesAlongCauses(error: unknown): string[] {
  const messages: string[] = [];
  for (let current = error; current instanceof Error; current = current.cause) {
    messages.push(current.message);
  }
  return messages;
}

function expectCleanFailure(error: AuthError, message: string, code: string): void {
  expect(error.code).toBe(code);
  expect(error.status).toBe(500);
  expect(error.message).toBe(message);
  for (const text of messagesAlongCauses(error)) {
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain(PROVIDER_TEXT);
  }
}

/**
 * The failure behaviour every outbound transport shares: a non-2xx answer,
 * a refused connection, a timeout and a redirect all reject with
 * `EMAIL_SEND_FAILED` (`SMS_SEND_FAILED` for SMS) and a generic message that holds neither the API key
 * nor the provider's text.
 */
export function describeDeliveryFailures(name: string, target: DeliveryTarget): void {
  describe(`${name}: delivery failures`, () => {
    afterEach(closeFakeServers);

    it.each([400, 401, 422, 500, 503])(
      "HTTP %i rejects, the provider's answer kept only as log detail",
      async (status) => {
        const server = await startFakeServer(() => ({
          status,
          body: JSON.stringify({ message: PROVIDER_TEXT }),
        }));
        const error = await failureOf(
          target.deliver({ baseURL: server.url, apiKey: API_KEY, timeoutMs: 5000 }),
        );
        expectCleanFailure(error, target.message, target.code ?? "EMAIL_SEND_FAILED");
        expect(error.cause).toBeInstanceOf(Error);
        expect((error.cause as Error).message).toContain(String(status));
        expect((error.cause as Error).cause).toMatchObject({
          status,
          responseText: expect.stringContaining(PROVIDER_TEXT),
        });
        expect(server.requests).toHaveLength(1);
      },
    );

    it("a refused connection rejects", async () => {
      const error = await failureOf(
        target.deliver({ baseURL: await refusedURL(), apiKey: API_KEY, timeoutMs: 5000 }),
      );
      expectCleanFailure(error, target.message, target.code ?? "EMAIL_SEND_FAILED");
    });

    it("a provider that never answers rejects after the timeout", async () => {
      const server = await startFakeServer(() => "hang");
      const error = await failureOf(
        target.deliver({ baseURL: server.url, apiKey: API_KEY, timeoutMs: 500 }),
      );
      expectCleanFailure(error, target.message, target.code ?? "EMAIL_SEND_FAILED");
      expect(server.requests).toHaveLength(1);
    });

    it("a redirect is not followed, so the key and message go nowhere else", async () => {
      const elsewhere = await startFakeServer();
      const server = await startFakeServer(() => ({
        status: 307,
        headers: { Location: `${elsewhere.url}/stolen` },
      }));
      const error = await failureOf(
        target.deliver({ baseURL: server.url, apiKey: API_KEY, timeoutMs: 5000 }),
      );
      expectCleanFailure(error, target.message, target.code ?? "EMAIL_SEND_FAILED");
      expect(elsewhere.requests).toHaveLength(0);
    });
  });
}
