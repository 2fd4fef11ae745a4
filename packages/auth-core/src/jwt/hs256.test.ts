import { createHmac } from "node:crypto";
import { encodeBase64urlNoPadding } from "@oslojs/encoding";
import { jwtVerify, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import {
  createHS256Key,
  type InvalidJWTReason,
  isJWTShaped,
  type JWTClaims,
  MAX_JWT_LENGTH,
  signJWT,
  verifyJWT,
} from "./hs256.js";
import { JWTError } from "./jwt-errors.js";

const SECRET = "test-secret-0123456789abcdef-0123456789";
const OTHER_SECRET = "other-secret-0123456789abcdef-012345678";
const key = createHS256Key(SECRET);
const ISSUER = "https://svc.example";
const NOW = 1_700_000_000;
const verifyOptions = { key, issuer: ISSUER, now: NOW };

const claims: JWTClaims = {
  sub: "user_1",
  iat: NOW,
  exp: NOW + 3600,
  iss: ISSUER,
  roles: ["member"],
};

const encoder = new TextEncoder();

/** base64url of a JSON value, or of a string's bytes as they are. */
function segment(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return encodeBase64urlNoPadding(encoder.encode(text));
}

function mac(algorithm: "sha256" | "sha512", input: string, secret: string | Buffer): string {
  return encodeBase64urlNoPadding(createHmac(algorithm, secret).update(input).digest());
}

type Signer = (signingInput: string) => string;
const hs256: Signer = (input) => mac("sha256", input, SECRET);

/** A token from any header and payload (JSON values, or raw text), signed by `sign`. */
function craft(header: unknown, payload: unknown, sign: Signer = hs256): string {
  const signingInput = `${segment(header)}.${segment(payload)}`;
  return `${signingInput}.${sign(signingInput)}`;
}

const HS256_HEADER = { alg: "HS256", typ: "JWT" };

function reasonOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    if (!(error instanceof JWTError)) throw error;
    expect(error.code).toBe("INVALID_JWT");
    expect(error.status).toBe(401);
    return error.cause;
  }
  throw new Error("expected INVALID_JWT");
}

/** A valid token of exactly `length` characters, padded with an extra claim. */
function tokenOfLength(length: number): string {
  for (let pad = 0; pad < length; pad++) {
    const token = craft(HS256_HEADER, { ...claims, pad: "x".repeat(pad) });
    if (token.length === length) return token;
    if (token.length > length) break;
  }
  throw new Error(`no token of length ${length}`);
}

describe("signJWT and verifyJWT", () => {
  it.each<[string, JWTClaims]>([
    ["without an organization", claims],
    ["with an organization", { ...claims, tenant_id: "org_1", roles: ["admin", "billing"] }],
    ["without roles", { ...claims, roles: [] }],
  ])("round-trips the claims %s", (_name, input) => {
    expect(verifyJWT(signJWT(input, key), verifyOptions)).toEqual(input);
  });

  it("signs the exact header and a payload in a fixed order, tenant_id left out when undefined", () => {
    const [header, payload] = signJWT({ ...claims, tenant_id: undefined }, key).split(".");
    expect(Buffer.from(header ?? "", "base64url").toString()).toBe('{"alg":"HS256","typ":"JWT"}');
    expect(Buffer.from(payload ?? "", "base64url").toString()).toBe(
      `{"iss":"${ISSUER}","sub":"user_1","iat":${NOW},"exp":${NOW + 3600},"roles":["member"]}`,
    );
  });

  it("interoperates with jose both ways (a differential check of the HMAC and the encoding)", async () => {
    const secretBytes = encoder.encode(SECRET);
    const { payload, protectedHeader } = await jwtVerify(signJWT(claims, key), secretBytes, {
      algorithms: ["HS256"],
      issuer: ISSUER,
      currentDate: new Date(NOW * 1000),
    });
    expect(protectedHeader).toEqual(HS256_HEADER);
    expect(payload).toEqual(claims);

    const fromJose = await new SignJWT({ roles: ["member"], tenant_id: "org_1" })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject("user_1")
      .setIssuer(ISSUER)
      .setIssuedAt(NOW)
      .setExpirationTime(NOW + 60)
      .sign(secretBytes);
    expect(verifyJWT(fromJose, verifyOptions)).toEqual({
      ...claims,
      exp: NOW + 60,
      tenant_id: "org_1",
    });
  });

  it("checks the signature over the received bytes, not a re-serialization", () => {
    const reordered = `{ "roles": ["member"], "exp": ${NOW + 10}, "iss": "${ISSUER}", "iat": ${NOW}, "sub": "user_1" }`;
    const token = craft('{"typ":"JWT", "alg":"HS256"}', reordered);
    expect(verifyJWT(token, verifyOptions)).toEqual({ ...claims, exp: NOW + 10 });
  });

  it("ignores claims it does not know", () => {
    const token = craft(HS256_HEADER, { ...claims, aud: "x", admin: true });
    expect(verifyJWT(token, verifyOptions)).toEqual(claims);
  });

  it.each<[string, Partial<JWTClaims>]>([
    ["exp one second after now", { exp: NOW + 1 }],
    ["iat exactly 60 s ahead (clock skew)", { iat: NOW + 60, exp: NOW + 120 }],
    ["iat long ago", { iat: NOW - 86_400, exp: NOW + 1 }],
  ])("accepts %s", (_name, change) => {
    const input = { ...claims, ...change };
    expect(verifyJWT(signJWT(input, key), verifyOptions)).toEqual(input);
  });

  it("accepts nbf up to 60 s ahead", () => {
    expect(verifyJWT(craft(HS256_HEADER, { ...claims, nbf: NOW + 60 }), verifyOptions)).toEqual(
      claims,
    );
  });

  it(`accepts a token of exactly ${MAX_JWT_LENGTH} characters`, () => {
    expect(verifyJWT(tokenOfLength(MAX_JWT_LENGTH), verifyOptions)).toEqual(claims);
  });
});

describe("verifyJWT refusals", () => {
  const valid = signJWT(claims, key);
  const [validHeader = "", validPayload = "", validSignature = ""] = valid.split(".");
  const escalated = segment({ ...claims, roles: ["admin"] });
  const withSignatureBytes = (change: (bytes: Buffer) => Uint8Array): string =>
    encodeBase64urlNoPadding(change(Buffer.from(validSignature, "base64url")));

  it.each<[string, () => string, InvalidJWTReason]>([
    // Algorithm confusion.
    [
      "alg none with an empty signature",
      () => `${segment({ alg: "none" })}.${validPayload}.`,
      "malformed",
    ],
    ["alg none with an HMAC signature", () => craft({ alg: "none", typ: "JWT" }, claims), "header"],
    [
      "alg none, signature segment dropped",
      () => `${segment({ alg: "none" })}.${validPayload}`,
      "malformed",
    ],
    [
      "an RS256 header signed with HMAC using the secret",
      () => craft({ alg: "RS256", typ: "JWT" }, claims),
      "header",
    ],
    [
      "an HS512 header signed with HS512",
      () => craft({ alg: "HS512", typ: "JWT" }, claims, (input) => mac("sha512", input, SECRET)),
      "signature",
    ],
    [
      "an HS512 header signed with HS256",
      () => craft({ alg: "HS512", typ: "JWT" }, claims),
      "header",
    ],
    ["alg in lower case", () => craft({ alg: "hs256", typ: "JWT" }, claims), "header"],
    ["alg missing", () => craft({ typ: "JWT" }, claims), "header"],
    ["alg a number", () => craft({ alg: 256, typ: "JWT" }, claims), "header"],
    ["alg an array", () => craft({ alg: ["HS256"], typ: "JWT" }, claims), "header"],
    ["alg null", () => craft({ alg: null, typ: "JWT" }, claims), "header"],
    ["typ other than JWT", () => craft({ alg: "HS256", typ: "at+jwt" }, claims), "header"],
    [
      "a crit extension",
      () => craft({ alg: "HS256", crit: ["b64"], b64: false }, claims),
      "header",
    ],
    ["a header that is a JSON array", () => craft(["HS256"], claims), "header"],
    ["a header that is JSON null", () => craft("null", claims), "header"],
    // Tampering and keys.
    [
      "a tampered payload (role escalation) with the original signature",
      () => `${validHeader}.${escalated}.${validSignature}`,
      "signature",
    ],
    [
      "a tampered header with the original signature",
      () => `${segment({ alg: "HS256", typ: "JWT", kid: "k" })}.${validPayload}.${validSignature}`,
      "signature",
    ],
    [
      "a signature of the wrong secret",
      () => signJWT(claims, createHS256Key(OTHER_SECRET)),
      "signature",
    ],
    [
      "a signature one byte short",
      () =>
        `${validHeader}.${validPayload}.${withSignatureBytes((bytes) => bytes.subarray(0, 31))}`,
      "signature",
    ],
    [
      "a signature with one extra byte",
      () =>
        `${validHeader}.${validPayload}.${withSignatureBytes((bytes) => Buffer.concat([bytes, Buffer.from([0])]))}`,
      "signature",
    ],
    // Claims.
    ["a wrong issuer", () => signJWT({ ...claims, iss: "https://evil.example" }, key), "issuer"],
    [
      "an issuer differing in case",
      () => signJWT({ ...claims, iss: ISSUER.toUpperCase() }, key),
      "issuer",
    ],
    ["exp equal to now", () => signJWT({ ...claims, iat: NOW - 60, exp: NOW }, key), "expired"],
    ["exp before now", () => signJWT({ ...claims, iat: NOW - 60, exp: NOW - 1 }, key), "expired"],
    [
      "iat 61 s in the future",
      () => signJWT({ ...claims, iat: NOW + 61, exp: NOW + 3600 }, key),
      "not-yet-valid",
    ],
    [
      "iat a day in the future",
      () => signJWT({ ...claims, iat: NOW + 86_400, exp: NOW + 90_000 }, key),
      "not-yet-valid",
    ],
    [
      "nbf 61 s in the future",
      () => craft(HS256_HEADER, { ...claims, nbf: NOW + 61 }),
      "not-yet-valid",
    ],
    [
      "exp not after iat",
      () => craft(HS256_HEADER, { ...claims, iat: NOW + 10, exp: NOW + 10 }),
      "claims",
    ],
    ["a JSON array payload", () => craft(HS256_HEADER, [claims]), "claims"],
    ["a JSON string payload", () => craft(HS256_HEADER, '"user_1"'), "claims"],
    ["sub missing", () => craft(HS256_HEADER, { ...claims, sub: undefined }), "claims"],
    ["sub empty", () => craft(HS256_HEADER, { ...claims, sub: "" }), "claims"],
    ["sub a number", () => craft(HS256_HEADER, { ...claims, sub: 1 }), "claims"],
    ["roles missing", () => craft(HS256_HEADER, { ...claims, roles: undefined }), "claims"],
    ["roles not strings", () => craft(HS256_HEADER, { ...claims, roles: ["admin", 1] }), "claims"],
    ["roles a string", () => craft(HS256_HEADER, { ...claims, roles: "admin" }), "claims"],
    ["iat a fraction", () => craft(HS256_HEADER, { ...claims, iat: NOW + 0.5 }), "claims"],
    ["exp a string", () => craft(HS256_HEADER, { ...claims, exp: String(NOW + 3600) }), "claims"],
    [
      "exp beyond the safe integers",
      () => craft(HS256_HEADER, { ...claims, exp: 2 ** 60 }),
      "claims",
    ],
    ["iss missing", () => craft(HS256_HEADER, { ...claims, iss: undefined }), "claims"],
    ["tenant_id a number", () => craft(HS256_HEADER, { ...claims, tenant_id: 7 }), "claims"],
    ["tenant_id empty", () => craft(HS256_HEADER, { ...claims, tenant_id: "" }), "claims"],
    ["tenant_id null", () => craft(HS256_HEADER, { ...claims, tenant_id: null }), "claims"],
    // Shape and encoding.
    ["two segments", () => `${validHeader}.${validPayload}`, "malformed"],
    ["four segments", () => `${valid}.${validSignature}`, "malformed"],
    ["an empty payload segment", () => `${validHeader}..${validSignature}`, "malformed"],
    ["an empty string", () => "", "malformed"],
    ["surrounding whitespace", () => ` ${valid}`, "malformed"],
    [
      "standard base64 characters",
      () => `${validHeader}.${validPayload.replaceAll("_", "/")}+.${validSignature}`,
      "malformed",
    ],
    ["base64 padding", () => `${valid}=`, "malformed"],
    [
      "a payload segment of length 1 mod 4, signed",
      () => {
        const input = `${validHeader}.${validPayload}A`;
        return `${input}.${hs256(input)}`;
      },
      "malformed",
    ],
    [
      "non-canonical trailing bits in the signature",
      () => `${valid.slice(0, -1)}${validSignature.endsWith("B") ? "C" : "B"}`,
      "malformed",
    ],
    ["a payload that is not JSON", () => craft(HS256_HEADER, "{sub: user_1}"), "malformed"],
    ["a header that is not JSON", () => craft("alg=HS256", claims), "malformed"],
    [
      "a payload that is not UTF-8",
      () => {
        const input = `${validHeader}.${encodeBase64urlNoPadding(new Uint8Array([0x7b, 0xff, 0x7d]))}`;
        return `${input}.${hs256(input)}`;
      },
      "malformed",
    ],
    [
      `a token of ${MAX_JWT_LENGTH + 1} characters, validly signed`,
      () => tokenOfLength(MAX_JWT_LENGTH + 1),
      "too-long",
    ],
    ["a megabyte of garbage", () => "a".repeat(1 << 20), "too-long"],
  ])("refuses %s", (_name, token, reason) => {
    expect(reasonOf(() => verifyJWT(token(), verifyOptions))).toBe(reason);
  });

  it("refuses the RS256 confusion token signed with a public key's PEM text as the HMAC secret", () => {
    const pem =
      "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\n";
    const token = craft({ alg: "RS256", typ: "JWT" }, claims, (input) => mac("sha256", input, pem));
    expect(reasonOf(() => verifyJWT(token, verifyOptions))).toBe("signature");
  });

  it("says nothing of the reason to the client", () => {
    try {
      verifyJWT(signJWT({ ...claims, iat: NOW - 60, exp: NOW }, key), verifyOptions);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(JWTError);
      expect((error as JWTError).message).toBe("The JWT is invalid or expired.");
    }
  });
});

describe("signJWT guards", () => {
  it.each<[string, JWTClaims]>([
    ["an empty sub", { ...claims, sub: "" }],
    ["a fractional exp", { ...claims, exp: NOW + 0.5 }],
    ["an empty issuer", { ...claims, iss: "" }],
  ])("throws on %s", (_name, input) => {
    expect(() => signJWT(input, key)).toThrow();
  });

  it(`throws a RangeError for a token over ${MAX_JWT_LENGTH} characters`, () => {
    const roles = Array.from({ length: 1000 }, (_, i) => `role-number-${i}`);
    expect(() => signJWT({ ...claims, roles }, key)).toThrow(RangeError);
  });

  it("refuses an empty secret", () => {
    expect(() => createHS256Key("")).toThrow(RangeError);
  });
});

describe("isJWTShaped", () => {
  it.each<[string, boolean]>([
    ["a.b.c", true],
    ["eyJ.eyJ.", true],
    ["..", true],
    ["pk.key_abcdefgh.secret", true],
    ["svc_abcdef", false],
    ["a.b", false],
    ["a.b.c.d", false],
    ["", false],
    ["abc", false],
  ])("%j → %s", (token, shaped) => {
    expect(isJWTShaped(token)).toBe(shaped);
  });
});
