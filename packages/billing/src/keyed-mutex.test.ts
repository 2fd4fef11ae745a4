import { describe, expect, it } from "vitest";
import { KeyedMutex } from "./keyed-mutex.js";

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/** Jobs that write their start and end to `log` around a short wait, and return their name. */
const loggedJob = (log: string[]) => (name: string) => async () => {
  log.push(`${name} start`);
  await tick();
  log.push(`${name} end`);
  return name;
};

describe("KeyedMutex", () => {
  it("runs work for one key one at a time, in call order", async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    const job = loggedJob(log);
    const results = await Promise.all([
      mutex.run("k", job("a")),
      mutex.run("k", job("b")),
      mutex.run("k", job("c")),
    ]);
    expect(results).toEqual(["a", "b", "c"]);
    expect(log).toEqual(["a start", "a end", "b start", "b end", "c start", "c end"]);
    expect(mutex.size).toBe(0);
  });

  it("lets different keys run side by side", async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    const job = loggedJob(log);
    await Promise.all([mutex.run("x", job("x")), mutex.run("y", job("y"))]);
    expect(log.slice(0, 2).sort()).toEqual(["x start", "y start"]);
  });

  it("releases the key when the work throws", async () => {
    const mutex = new KeyedMutex();
    const failing = mutex.run("k", async () => {
      await tick();
      throw new Error("boom");
    });
    const next = mutex.run("k", async () => "ran");
    await expect(failing).rejects.toThrow("boom");
    await expect(next).resolves.toBe("ran");
    expect(mutex.size).toBe(0);
  });
});
