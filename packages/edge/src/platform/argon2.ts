/**
 * `@node-rs/argon2`'s `hash` and `verify`, in JavaScript (@noble/hashes)
 * for runtimes without native modules: the edge build aliases the package
 * to this module, so auth-core's password hashing runs unchanged. Same
 * algorithm, parameters and PHC strings, so hashes move between the server
 * and the edge. It costs about 200 ms of CPU per hash or verify (argon2id,
 * 19 MiB, 2 passes) where the native module takes about 20.
 */

import { timingSafeEqual } from "node:crypto";
import { argon2id } from "@noble/hashes/argon2.js";

interface Options {
  readonly memoryCost?: number;
  readonly timeCost?: number;
  readonly parallelism?: number;
  readonly outputLen?: number;
  readonly salt?: Uint8Array;
}

const DEFAULTS = { memoryCost: 19_456, timeCost: 2, parallelism: 1, outputLen: 32 } as const;

function toBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/=+$/, "");
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

/** Hashes `password` with argon2id into a PHC string (`$argon2id$v=19$m=...,t=...,p=...$salt$hash`). */
export async function hash(password: string, options: Options = {}): Promise<string> {
  const m = options.memoryCost ?? DEFAULTS.memoryCost;
  const t = options.timeCost ?? DEFAULTS.timeCost;
  const p = options.parallelism ?? DEFAULTS.parallelism;
  const salt = options.salt ?? crypto.getRandomValues(new Uint8Array(16));
  const digest = argon2id(password, salt, {
    m,
    t,
    p,
    dkLen: options.outputLen ?? DEFAULTS.outputLen,
  });
  return `$argon2id$v=19$m=${m},t=${t},p=${p}$${toBase64(salt)}$${toBase64(digest)}`;
}

const PHC = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

/** Whether `password` matches the argon2id PHC string `phc`; throws on a malformed string (as the native module does). */
export async function verify(phc: string, password: string): Promise<boolean> {
  const match = PHC.exec(phc);
  if (match === null) throw new Error("Invalid PHC string");
  const [, m, t, p, salt, expected] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const wanted = fromBase64(expected);
  const digest = argon2id(password, fromBase64(salt), {
    m: Number(m),
    t: Number(t),
    p: Number(p),
    dkLen: wanted.length,
  });
  return digest.length === wanted.length && timingSafeEqual(digest, wanted);
}
