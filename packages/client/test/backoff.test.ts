import { refusedURL } from "@svc/tooling/http-server";
import { describe, expect, it } from "vitest";
import { backoffDelay, createClient } from "../src/index.js";
import { manualTimers, statusLog } from "./live-fixture.js";
import { waitFor } from "./wait-for.js";

describe("backoffDelay", () => {
  it.each([
    [0, 0.5, 125],
    [1, 0.5, 250],
    [3, 0.5, 1000],
    [6, 0.5, 8000],
    [7, 0.5, 15_000],
    [60, 0.5, 15_000],
    [2000, 0.999, 29_970],
    [5, 0, 0],
  ])(
    "attempt %i with random %f waits %i ms (full jitter, cap 30 s)",
    (attempt, random, expected) => {
      expect(backoffDelay(attempt, { random: () => random })).toBe(expected);
    },
  );

  it("spreads delays over the whole ceiling", () => {
    const values = [0, 0.25, 0.75];
    expect(values.map((value) => backoffDelay(2, { random: () => value }))).toEqual([0, 250, 750]);
  });
});

describe("reconnect schedule", () => {
  it("retries a refused WebSocket with growing delays from the injected random and timers", async () => {
    const clock = manualTimers();
    const log = statusLog();
    const client = createClient({
      url: await refusedURL(),
      token: "svc_unused",
      live: {
        transport: "websocket",
        random: () => 0.5,
        timers: clock.timers,
        onStatus: log.onStatus,
      },
    });
    const todos = client.subscribe("Todo", {}, () => undefined);
    for (let attempt = 0; attempt < 9; attempt += 1) {
      await waitFor(() => expect(clock.pending()).toBe(1));
      clock.fire();
    }
    await waitFor(() => expect(clock.pending()).toBe(1));
    expect(clock.scheduled).toEqual([
      125, 250, 500, 1000, 2000, 4000, 8000, 15_000, 15_000, 15_000,
    ]);
    // "websocket" never falls back, however often it fails.
    expect(log.states()).not.toContain("websocket:fallback");
    todos.unsubscribe();
    expect(clock.pending()).toBe(0);
    expect(log.states().at(-1)).toBe("websocket:closed");
  });
});
