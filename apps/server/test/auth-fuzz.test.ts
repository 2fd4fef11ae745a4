import { gzipSync } from "node:zlib";
import { testDatabases } from "@svc/tooling/databases";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOnFreshDatabase } from "./app-server.js";
import { type AuthTestServer, post, readJSON, registerPassword } from "./auth-fixtures.js";

// A fuzz pass over the JSON bodies (and the one query string and the auth
// headers) of every auth endpoint. The generator is a small seeded PRNG
// (fast-check is not a dependency of this package): the same seed gives the
// same bodies on every run and on both databases. Every answer must be a 4xx
// in the svc error envelope with an UPPER_SNAKE code; a 5xx is a bug.

const SEED = 0x5eed2030;
const BODIES_PER_ENDPOINT = 150;
const UPPER_SNAKE = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/;
const BODY_LIMIT = 64 * 1024;

/** A seeded PRNG (mulberry32) with the few draws the generators need. */
interface Random {
  float(): number;
  /** An integer in [0, max). */
  int(max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
}

function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const float = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (max: number): number => Math.floor(float() * max);
  return {
    float,
    int,
    chance: (probability) => float() < probability,
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new RangeError("pick from an empty list");
      return items[int(items.length)] as T;
    },
  };
}

/** A stable 32-bit hash, so each endpoint gets its own stream from the one seed. */
function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (const char of text) {
    hash ^= char.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

const STRING_PIECES: readonly string[] = [
  "a",
  "Z",
  "0",
  "7",
  " ",
  "\t",
  "\n",
  "\r",
  "\u0000",
  "\u0007",
  "\u001b",
  "\u007f",
  "\u00e9",
  "\u0130",
  "\u03a3",
  "\u0301",
  "\u200b",
  "\u202e",
  "\ufeff",
  "\ud83d\ude00",
  "\ud800",
  "\udfff",
  "\uffff",
  '"',
  "\\",
  "'",
  "<script>",
  "&",
  "%",
  "%00",
  "%zz",
  "{}",
  "[]",
  "+",
  "-",
  "(",
  ")",
  "@",
  ".",
  "/",
  ":",
  "=",
  "?",
  "#",
  "__proto__",
  "constructor",
  "toString",
  "null",
  "true",
  "1e999",
  "svc_",
  "javascript:alert(1)",
  "http://evil.example",
  "//evil.example",
  "$1",
  "' OR 1=1 --",
];

function randomString(random: Random): string {
  if (random.chance(0.08)) {
    // A huge string, most of the time still under the 64 KiB body limit.
    return random.pick(STRING_PIECES).repeat(1000 + random.int(30_000));
  }
  let text = "";
  const pieces = random.int(12);
  for (let i = 0; i < pieces; i += 1) text += random.pick(STRING_PIECES);
  return text;
}

const RANDOM_KEYS: readonly string[] = [
  "email",
  "code",
  "password",
  "phone",
  "token",
  "callback",
  "captchaToken",
  "__proto__",
  "constructor",
  "prototype",
  "",
  " email",
  "EMAIL",
  "email\u0000",
  "\ud83d\ude00",
];

/** Any JSON value, nesting at most `depth` more levels. */
function randomJSON(random: Random, depth: number): unknown {
  const kinds = depth > 0 ? 9 : 6;
  switch (random.int(kinds)) {
    case 0:
      return null;
    case 1:
      return random.chance(0.5);
    case 2:
      return random.pick([
        0,
        -0,
        1,
        -1,
        42,
        123456,
        1e21,
        -1e-7,
        1.5,
        2 ** 53 + 1,
        1.7e308,
        -1.7e308,
      ]);
    case 3:
      return random.int(2_000_000) - 1_000_000;
    case 4:
    case 5:
      return randomString(random);
    case 6:
    case 7: {
      // Null prototype: a `__proto__` key becomes an own key and is sent.
      const object: Record<string, unknown> = Object.create(null);
      const keys = random.int(5);
      for (let i = 0; i < keys; i += 1) {
        const key = random.chance(0.5)
          ? random.pick(RANDOM_KEYS)
          : randomString(random).slice(0, 40);
        object[key] = randomJSON(random, depth - 1);
      }
      return object;
    }
    default:
      return Array.from({ length: random.int(5) }, () => randomJSON(random, depth - 1));
  }
}

/** A value of the wrong type for a string field: never a string, never null. */
function wrongTypeValue(random: Random): unknown {
  for (;;) {
    const value = randomJSON(random, 3);
    if (value !== null && typeof value !== "string") return value;
  }
}

// Looser forms of the endpoints' shape checks, so a fuzzed string is kept
// from being accidentally valid where validity could mean success.
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const E164 = /^\+[1-9]\d{6,14}$/;

function spoilString(key: string, value: string): string {
  if (key === "email") {
    const email = value.trim().toLowerCase();
    return email.length <= 254 && EMAIL_SHAPE.test(email) ? value.replaceAll("@", "(at)") : value;
  }
  if (key === "phone") return E164.test(value.replace(/[\s().-]/g, "")) ? `${value}#` : value;
  return value;
}

/** Valid-shaped addresses, some of them hostile; no code or password exists for any. */
const VALID_SHAPED_EMAILS: readonly string[] = [
  "fuzz@example.com",
  "  Padded.UPPER@Example.COM ",
  "\u00fcn\u00efc\u00f6d\u00e9@ex\u00e4mple.com",
  "\ud83d\ude00@example.com",
  "a\u0000b@example.com",
  "a\u0007b@example.com",
  'quote"d@example.com',
  `${"x".repeat(240)}@example.com`,
  "'; drop table svc_codes; --@example.com",
];

/** One auth endpoint that reads a JSON body. */
interface FuzzEndpoint {
  readonly path: string;
  /** Who calls: nobody, a guest or a signed-in user. */
  readonly caller: "anonymous" | "guest" | "user";
  /** The fields the handler reads, with a well-formed value each. */
  readonly template: Readonly<Record<string, (random: Random) => unknown>>;
  /**
   * Fields of which at least one must be broken (given a non-string,
   * non-null value) for the request to be sure to fail; empty when no body
   * can succeed (nothing to verify was ever sent).
   */
  readonly breakOneOf: readonly string[];
}

const anEmail = (random: Random): string => random.pick(VALID_SHAPED_EMAILS);
const aCode = (random: Random): unknown =>
  random.pick(["123456", " 000000 ", 123456, 7, "1".repeat(600), "12345a"]);
const aPassword = (): string => "correct horse battery";
const aPhone = (): string => "+14155550100";

const ENDPOINTS: readonly FuzzEndpoint[] = [
  {
    path: "/api/auth/magic/send",
    caller: "anonymous",
    template: { email: anEmail, captchaToken: randomString },
    breakOneOf: ["email"],
  },
  {
    path: "/api/auth/magic/verify",
    caller: "anonymous",
    template: { email: anEmail, code: aCode },
    breakOneOf: [],
  },
  {
    path: "/api/auth/magic-link/send",
    caller: "anonymous",
    template: { email: anEmail, callback: () => "/done", captchaToken: randomString },
    breakOneOf: ["email", "callback"],
  },
  {
    path: "/api/auth/magic-link/verify",
    caller: "anonymous",
    template: { email: anEmail, token: randomString },
    breakOneOf: [],
  },
  {
    path: "/api/auth/password/register",
    caller: "anonymous",
    template: { email: anEmail, password: aPassword, captchaToken: randomString },
    breakOneOf: ["email", "password"],
  },
  {
    path: "/api/auth/password/login",
    caller: "anonymous",
    template: { email: anEmail, password: aPassword },
    breakOneOf: [],
  },
  {
    path: "/api/auth/password/reset/send",
    caller: "anonymous",
    template: { email: anEmail, captchaToken: randomString },
    breakOneOf: ["email"],
  },
  {
    path: "/api/auth/password/reset",
    caller: "anonymous",
    template: { email: anEmail, code: aCode, password: aPassword },
    breakOneOf: [],
  },
  {
    // The current password is never the user's, so no change can succeed.
    path: "/api/auth/password/change",
    caller: "user",
    template: { currentPassword: () => "not the fuzz user's password", newPassword: aPassword },
    breakOneOf: [],
  },
  {
    path: "/api/auth/phone/send-code",
    caller: "anonymous",
    template: { phone: aPhone, captchaToken: randomString },
    breakOneOf: ["phone"],
  },
  {
    path: "/api/auth/phone/verify",
    caller: "anonymous",
    template: { phone: aPhone, code: aCode },
    breakOneOf: ["phone"],
  },
  {
    path: "/api/auth/email/send-verification",
    caller: "anonymous",
    template: {},
    breakOneOf: [],
  },
  {
    path: "/api/auth/email/send-verification",
    caller: "guest",
    template: {},
    breakOneOf: [],
  },
  {
    path: "/api/auth/email/verify",
    caller: "anonymous",
    template: { code: aCode },
    breakOneOf: [],
  },
  { path: "/api/auth/email/verify", caller: "user", template: { code: aCode }, breakOneOf: [] },
];

/** One generated request. */
interface FuzzCase {
  readonly kind: "wrong-fields" | "broken-template" | "any-json" | "invalid-json" | "deep" | "huge";
  readonly body: string | Uint8Array;
  readonly contentType: string | undefined;
  /** The exact code this case must get, when the kind decides it. */
  readonly expectCode?: string;
}

const CONTENT_TYPES: readonly (string | undefined)[] = [
  "application/json",
  "application/json",
  "application/json",
  "application/json; charset=utf-8",
  "text/plain",
  "application/x-www-form-urlencoded",
  undefined,
];

/** The number 1 nested `levels` deep in arrays or in objects. */
function nested(levels: number, asObject: boolean): string {
  return asObject
    ? `${'{"email":'.repeat(levels)}1${"}".repeat(levels)}`
    : `${"[".repeat(levels)}1${"]".repeat(levels)}`;
}

const FIXED_INVALID_JSON: readonly string[] = [
  "{",
  "}",
  "{'email':'a@example.com'}",
  "{email:1}",
  "[1,]",
  '{"email":"a@example.com",}',
  "NaN",
  "undefined",
  '{"email": "unterminated',
  "tru",
  '{"a":1}}',
  '{"email":"a@example.com" "code":"1"}',
  "0x10",
  "01",
  ".5",
  "+1",
  "\u0000",
  "   ",
  '{"email":"\\x41"}',
  "/* comment */ {}",
];

function invalidJSON(random: Random): string | Uint8Array {
  switch (random.int(3)) {
    case 0:
      return random.pick(FIXED_INVALID_JSON);
    case 1: {
      // Random bytes, often not UTF-8 at all.
      return Uint8Array.from({ length: 1 + random.int(64) }, () => random.int(256));
    }
    default: {
      // A valid body cut short or with a stray character inserted.
      const text = JSON.stringify({ email: "a@example.com", code: "123456", x: [1, { y: 2 }] });
      const at = 1 + random.int(text.length - 2);
      return random.chance(0.5)
        ? text.slice(0, at)
        : `${text.slice(0, at)}${random.pick(["'", ",", "}", "]", ":", "\\"])}${text.slice(at)}`;
    }
  }
}

function isValidJSON(body: string | Uint8Array): boolean {
  try {
    JSON.parse(typeof body === "string" ? body : new TextDecoder().decode(body));
    return true;
  } catch {
    return false;
  }
}

function generateCase(endpoint: FuzzEndpoint, random: Random): FuzzCase {
  const contentType = random.pick(CONTENT_TYPES);
  const roll = random.float();
  if (roll < 0.35) {
    // Random keys, and every field the handler reads holding a wrong value.
    const body: Record<string, unknown> = Object.create(null);
    const extra = random.int(4);
    for (let i = 0; i < extra; i += 1) {
      const key = random.pick(RANDOM_KEYS);
      const value = randomJSON(random, 3);
      body[key] = typeof value === "string" ? spoilString(key, value) : value;
    }
    for (const key of Object.keys(endpoint.template)) {
      if (random.chance(0.15)) continue;
      const value = randomJSON(random, 3);
      body[key] = typeof value === "string" ? spoilString(key, value) : value;
    }
    return { kind: "wrong-fields", body: JSON.stringify(body), contentType };
  }
  if (roll < 0.7) {
    // Well-formed fields with at least one broken where one must be.
    const body: Record<string, unknown> = Object.create(null);
    const keys = Object.keys(endpoint.template);
    const mustBreak =
      endpoint.breakOneOf.length === 0 ? undefined : random.pick(endpoint.breakOneOf);
    for (const key of keys) {
      const make = endpoint.template[key];
      if (key === mustBreak) body[key] = wrongTypeValue(random);
      else if (random.chance(0.3))
        body[key] = endpoint.breakOneOf.includes(key)
          ? wrongTypeValue(random)
          : randomJSON(random, 2);
      else if (make !== undefined) body[key] = make(random);
    }
    const extraKey = random.pick(RANDOM_KEYS);
    if (random.chance(0.3) && !(extraKey in body)) body[extraKey] = randomJSON(random, 2);
    return { kind: "broken-template", body: JSON.stringify(body), contentType };
  }
  if (roll < 0.8) {
    // A body that is not an object: the handler reads it as {}.
    let value = randomJSON(random, 3);
    while (typeof value === "object" && value !== null && !Array.isArray(value)) {
      value = randomJSON(random, 3);
    }
    return { kind: "any-json", body: JSON.stringify(value), contentType };
  }
  if (roll < 0.9) {
    let body = invalidJSON(random);
    while (isValidJSON(body)) body = invalidJSON(random);
    return { kind: "invalid-json", body, contentType };
  }
  if (roll < 0.95) {
    const levels = 65 + random.int(100);
    return {
      kind: "deep",
      body: `{"email":${nested(levels, random.chance(0.5))}}`,
      contentType,
      expectCode: "INVALID_JSON",
    };
  }
  const size = BODY_LIMIT + 4096 + random.int(200 * 1024);
  return {
    kind: "huge",
    body: JSON.stringify({ email: "a".repeat(size) }),
    contentType,
    expectCode: "PAYLOAD_TOO_LARGE",
  };
}

function preview(body: string | Uint8Array): string {
  const text = typeof body === "string" ? body : `bytes:${Buffer.from(body).toString("hex")}`;
  return text.length > 160
    ? `${JSON.stringify(text.slice(0, 160))}… (${text.length} chars)`
    : JSON.stringify(text);
}

/** What is wrong with an answer, or undefined when it is a well-formed 4xx. */
function problemWith(status: number, text: string, expectCode?: string): string | undefined {
  if (status < 400 || status > 499) return `status ${status}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return `status ${status} with a body that is not JSON`;
  }
  const error = (parsed as { error?: unknown } | null)?.error as
    | Record<string, unknown>
    | undefined;
  if (typeof error !== "object" || error === null)
    return `status ${status} without an error object`;
  if (Object.keys(error).sort().join() !== "code,message")
    return `error keys ${Object.keys(error)}`;
  if (typeof error.code !== "string" || !UPPER_SNAKE.test(error.code))
    return `code ${JSON.stringify(error.code)} is not UPPER_SNAKE`;
  if (typeof error.message !== "string" || error.message === "") return "empty message";
  if (expectCode !== undefined && error.code !== expectCode)
    return `code ${error.code}, expected ${expectCode}`;
  return undefined;
}

describe.each(testDatabases())("auth endpoint fuzzing on $name", (database) => {
  let server: AuthTestServer;
  const tokens: Record<FuzzEndpoint["caller"], string | undefined> = {
    anonymous: undefined,
    guest: undefined,
    user: undefined,
  };

  beforeAll(async () => {
    server = await startOnFreshDatabase(database, { SVC_DEV_MODE: "true", SVC_RATE_LIMIT: "off" });
    const guest = await readJSON<{ token: string }>(post(server, "/api/auth/guest"));
    tokens.guest = guest.body.token;
    tokens.user = (await registerPassword(server, "fuzz-user@example.com")).token;
  });
  afterAll(() => server?.[Symbol.asyncDispose]());

  /** Sends one request and returns a line describing what went wrong, if anything. */
  async function check(
    label: string,
    init: {
      method?: string;
      path: string;
      headers?: Record<string, string>;
      body?: string | Uint8Array;
    },
    expectCode?: string,
  ): Promise<string | undefined> {
    const before = server.internalErrors.length;
    const response = await fetch(`${server.url}${init.path}`, {
      method: init.method ?? "POST",
      headers: init.headers ?? {},
      ...(init.body !== undefined && { body: init.body }),
    });
    const text = await response.text();
    const problem = problemWith(response.status, text, expectCode);
    if (problem === undefined) return undefined;
    const logged = server.internalErrors.slice(before).map((error) => String(error));
    return `${label}: ${problem}: ${text.slice(0, 200)}${logged.length > 0 ? ` (logged: ${logged.join("; ")})` : ""}`;
  }

  function headersFor(
    caller: FuzzEndpoint["caller"],
    contentType?: string,
  ): Record<string, string> {
    const token = tokens[caller];
    return {
      ...(contentType !== undefined && { "content-type": contentType }),
      ...(token !== undefined && { authorization: `Bearer ${token}` }),
    };
  }

  it.each(ENDPOINTS.map((endpoint) => [endpoint.path, endpoint.caller, endpoint] as const))(
    "answers %s (%s) with a 4xx envelope for every fuzzed body",
    async (path, caller, endpoint) => {
      const random = createRandom(SEED ^ hashString(`${path} ${caller}`));
      const problems: string[] = [];
      for (let i = 0; i < BODIES_PER_ENDPOINT; i += 1) {
        const fuzz = generateCase(endpoint, random);
        const problem = await check(
          `#${i} ${fuzz.kind} ${fuzz.contentType ?? "(no content type)"} ${preview(fuzz.body)}`,
          { path, headers: headersFor(caller, fuzz.contentType), body: fuzz.body },
          fuzz.expectCode,
        );
        if (problem !== undefined) problems.push(problem);
      }
      expect(problems).toEqual([]);
    },
  );

  it.each(ENDPOINTS.map((endpoint) => [endpoint.path, endpoint.caller, endpoint] as const))(
    "answers %s (%s) with 400 INVALID_JSON for malformed, 100-deep and 413 for 200 KB bodies",
    async (path, caller) => {
      const cases: [string, string | Uint8Array, string][] = [
        ...FIXED_INVALID_JSON.map((body): [string, string, string] => [
          `invalid ${JSON.stringify(body)}`,
          body,
          "INVALID_JSON",
        ]),
        ["100 nested objects", `{"email":${nested(100, true)}}`, "INVALID_JSON"],
        ["100 nested arrays", nested(100, false), "INVALID_JSON"],
        ["200 KB", JSON.stringify({ email: "a".repeat(200 * 1024) }), "PAYLOAD_TOO_LARGE"],
        // Inflates to 10 MB: the limit applies to the decoded body.
        ["a gzip bomb", gzipSync(Buffer.alloc(10 * 1024 * 1024, 0x20)), "PAYLOAD_TOO_LARGE"],
      ];
      const problems: string[] = [];
      for (const [label, body, code] of cases) {
        const headers = headersFor(caller, "application/json");
        if (label === "a gzip bomb") headers["content-encoding"] = "gzip";
        const problem = await check(label, { path, headers, body }, code);
        if (problem !== undefined) problems.push(problem);
      }
      expect(problems).toEqual([]);
    },
  );

  it("answers GET /api/auth/magic-link/verify with a 4xx envelope for every fuzzed query", async () => {
    const random = createRandom(SEED ^ hashString("GET /api/auth/magic-link/verify"));
    const problems: string[] = [];
    for (let i = 0; i < BODIES_PER_ENDPOINT; i += 1) {
      const params = new URLSearchParams();
      for (const key of ["email", "token", "callback"]) {
        const repeats = random.chance(0.2) ? 2 : random.chance(0.85) ? 1 : 0;
        for (let r = 0; r < repeats; r += 1) {
          const value =
            key === "email" && random.chance(0.5)
              ? anEmail(random)
              : key === "callback" && random.chance(0.3)
                ? random.pick([
                    "/done",
                    "http://localhost:5173/x",
                    "https://evil.example/",
                    "javascript:alert(1)",
                    "//evil.example",
                  ])
                : randomString(random).slice(0, 400);
          params.append(key, value);
        }
      }
      if (random.chance(0.3))
        params.append(random.pick(RANDOM_KEYS), randomString(random).slice(0, 200));
      // Node itself answers 431 past 16 KiB of request head; stay well under it.
      let query = params.toString().slice(0, 8000);
      if (random.chance(0.15))
        query += random.pick(["&email=%", "&token=%E0%A4%A", "&&&", "&email[]=x", "&=x"]);
      const problem = await check(`#${i} ?${query.slice(0, 200)}`, {
        method: "GET",
        path: `/api/auth/magic-link/verify?${query}`,
      });
      if (problem !== undefined) problems.push(problem);
    }
    expect(problems).toEqual([]);
  });

  it("answers GET /api/auth/me with a 4xx envelope for fuzzed Authorization and Cookie headers", async () => {
    const random = createRandom(SEED ^ hashString("auth headers"));
    const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i));
    const headerText = (max: number): string =>
      Array.from({ length: random.int(max) }, () => random.pick(printable)).join("");
    const problems: string[] = [];
    for (let i = 0; i < BODIES_PER_ENDPOINT; i += 1) {
      const headers: Record<string, string> = {};
      if (random.chance(0.6)) {
        headers.authorization = random.pick([
          `Bearer ${headerText(60)}`,
          `Bearer svc_${headerText(60)}`,
          `bearer   svc_${"A".repeat(43)}  `,
          `Bearer svc_${"x".repeat(random.int(8000))}`,
          `Basic ${headerText(30)}`,
          headerText(40),
          "Bearer",
          "Bearer  ",
        ]);
      }
      if (random.chance(0.6)) {
        headers.cookie = random.pick([
          `svc_session=${headerText(80)}`,
          `svc_session=svc_${headerText(43)}; svc_session=svc_${headerText(43)}`,
          `svc_session=%E0%A4%A; other=1`,
          `svc_session=${"%".repeat(random.int(50))}`,
          `svc_session; ${headerText(20)}`,
          headerText(120),
          ";;;=;=",
        ]);
      }
      const problem = await check(`#${i} ${JSON.stringify(headers).slice(0, 200)}`, {
        method: "GET",
        path: "/api/auth/me",
        headers,
      });
      if (problem !== undefined) problems.push(problem);
    }
    expect(problems).toEqual([]);
  });

  // Regression: an address with a control character passed the shape check,
  // so Postgres (whose text cannot hold NUL) answered 500 on the code and
  // link endpoints, and SQLite sent codes to, and registered, such addresses.
  it.each(
    [
      "a\u0000b@example.com",
      "a\u0007b@example.com",
      "a@exa\u001bmple.com",
      "a@example.co\u007f",
    ].flatMap((email) => {
      const label = email.replace(
        /\p{Cc}/gu,
        (char) => `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`,
      );
      return [
        ["/api/auth/magic/send", label, { email }],
        ["/api/auth/magic/verify", label, { email, code: "123456" }],
        ["/api/auth/magic-link/send", label, { email }],
        ["/api/auth/magic-link/verify", label, { email, token: "x".repeat(43) }],
        ["/api/auth/password/register", label, { email, password: "correct horse battery" }],
        ["/api/auth/password/login", label, { email, password: "correct horse battery" }],
      ] as const;
    }),
  )("answers %s for the address %s with 400 INVALID_EMAIL", async (path, _label, body) => {
    const response = await post(server, path, body);
    const { status, body: answer } = await readJSON<{ error?: { code: string } }>(response);
    expect({ status, code: answer.error?.code }).toEqual({ status: 400, code: "INVALID_EMAIL" });
  });

  it("answers GET /api/auth/magic-link/verify with a NUL in the address with 400 INVALID_EMAIL", async () => {
    const response = await fetch(
      `${server.url}/api/auth/magic-link/verify?email=a%00b%40example.com&token=abc`,
    );
    const { status, body } = await readJSON<{ error?: { code: string } }>(response);
    expect({ status, code: body.error?.code }).toEqual({ status: 400, code: "INVALID_EMAIL" });
  });

  it("reads no body at POST /api/auth/guest", async () => {
    for (const body of ["{", nested(100, false), "x".repeat(200 * 1024)]) {
      const response = await fetch(`${server.url}/api/auth/guest`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
  });
});
