import { hash as nativeHash, verify as nativeVerify } from "@node-rs/argon2";
import { describe, expect, it } from "vitest";
import { hash, verify } from "./argon2.js";

const OWASP = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

describe("the edge's argon2id", () => {
  it("verifies what the server's native module hashed, and the other way round", async () => {
    const fromServer = await nativeHash("correct horse battery", OWASP);
    expect(await verify(fromServer, "correct horse battery")).toBe(true);
    expect(await verify(fromServer, "correct horse batterY")).toBe(false);
    const fromEdge = await hash("correct horse battery", OWASP);
    expect(fromEdge).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await nativeVerify(fromEdge, "correct horse battery")).toBe(true);
    expect(await nativeVerify(fromEdge, "wrong")).toBe(false);
  });

  it("throws on a malformed hash, as the native module does", async () => {
    await expect(verify("not a hash", "x")).rejects.toThrow();
  });
});
