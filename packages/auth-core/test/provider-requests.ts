import { type FakeReply, type RecordedRequest, startFakeServer } from "@svc/tooling/http-server";
import { expect } from "vitest";

/** The one request a delivery made, with its body parsed. */
export interface PostedJSON extends RecordedRequest {
  readonly json: unknown;
}

/**
 * Runs `deliver` against a fake provider that answers `reply` and returns the
 * request it made, after checking it was the only one and a JSON POST, as
 * every provider and webhook expects.
 */
export async function postedJSON(
  deliver: (baseURL: string) => Promise<void>,
  reply: FakeReply = { status: 200, body: "{}" },
): Promise<PostedJSON> {
  const server = await startFakeServer(() => reply);
  await deliver(server.url);
  expect(server.requests).toHaveLength(1);
  const [request] = server.requests;
  if (request === undefined) throw new Error("nothing was sent");
  expect(request.method).toBe("POST");
  expect(request.headers["content-type"]).toBe("application/json");
  return { ...request, json: JSON.parse(request.body) };
}
