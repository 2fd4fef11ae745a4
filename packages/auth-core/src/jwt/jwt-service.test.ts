import { createAuthContext } from "@svc/schema";
import { thrownBy } from "@svc/tooling/thrown";
import { describe, expect, it } from "vitest";
import { createHS256Key, signJWT } from "./hs256.js";
import { JWTError, type JWTErrorCode } from "./jwt-errors.js";
import { createJWTService, type JWTService, type JWTServiceOptions } from "./jwt-service.js";

const SECRET = "service-secret-0123456789abcdef-0123";
const ISSUER = "https://svc.example";
const START_MS = 1_700_000_000_500;
const START = 1_700_000_000;

function fixedClock(ms = START_MS): { now: () => number; advance(seconds: number): void } {
  let current = ms;
  return {
    now: () => current,
    advance(seconds) {
      current += seconds * 1000;
    },
  };
}

function service(options: Partial<JWTServiceOptions> = {}) {
  const clock = fixedClock();
  const jwt = createJWTService({ secret: SECRET, issuer: ISSUER, now: clock.now, ...options });
  return { jwt, clock };
}

function payloadOf(token: string): string {
  return Buffer.from(token.split(".")[1] ?? "", "base64url").toString();
}

function codeOf(run: () => unknown): JWTErrorCode {
  return thrownBy(JWTError, run).code;
}

const member = { userId: "user_1", tenantId: null, roles: ["member"] };

/** `token`, minted now with a 60-second lifetime, verifies for 59 seconds and not at 60. */
function expectValidForAMinute(
  jwt: JWTService,
  clock: ReturnType<typeof fixedClock>,
  token: string,
): void {
  clock.advance(59);
  expect(jwt.verify(token).userId).toBe("user_1");
  clock.advance(1);
  expect(codeOf(() => jwt.verify(token))).toBe("INVALID_JWT");
}

describe("createJWTService mint and verify", () => {
  it("mints a token the service verifies as a jwt caller", () => {
    const { jwt } = service();
    const { token, expires_at } = jwt.mint({ ...member, tenantId: "org_1" });
    expect(expires_at).toBe(START + 3600);
    expect(jwt.verify(token)).toEqual(
      createAuthContext({ userId: "user_1", tenantId: "org_1", roles: ["member"], via: "jwt" }),
    );
    expect(Object.isFrozen(jwt.verify(token).roles)).toBe(true);
  });

  it.each<[string, string | null | undefined, string]>([
    [
      "null",
      null,
      `{"iss":"${ISSUER}","sub":"user_1","iat":${START},"exp":${START + 3600},"roles":["member"]}`,
    ],
    [
      "undefined",
      undefined,
      `{"iss":"${ISSUER}","sub":"user_1","iat":${START},"exp":${START + 3600},"roles":["member"]}`,
    ],
    [
      "org_1",
      "org_1",
      `{"iss":"${ISSUER}","sub":"user_1","iat":${START},"exp":${START + 3600},"tenant_id":"org_1","roles":["member"]}`,
    ],
  ])("snapshots the claims at mint time (tenant %s)", (_name, tenantId, payload) => {
    const { jwt } = service();
    expect(payloadOf(jwt.mint({ ...member, tenantId }).token)).toBe(payload);
  });

  it("keeps the claims of an issued token when the roles change afterwards", () => {
    const { jwt } = service();
    const roles = ["member"];
    const { token } = jwt.mint({ ...member, roles });
    roles.push("admin");
    expect(jwt.verify(token).roles).toEqual(["member"]);
    expect(jwt.verify(jwt.mint({ ...member, roles }).token).roles).toEqual(["member", "admin"]);
  });

  it("uses the configured lifetime and expires the token at exp exactly", () => {
    const { jwt, clock } = service({ lifetimeSecs: 60 });
    const { token, expires_at } = jwt.mint(member);
    expect(expires_at).toBe(START + 60);
    expectValidForAMinute(jwt, clock, token);
  });

  it("refuses a token of another secret, a token of another issuer and a forged alg", () => {
    const { jwt } = service();
    const other = createJWTService({
      secret: `${SECRET}-other`,
      issuer: ISSUER,
      now: () => START_MS,
    });
    const elsewhere = createJWTService({
      secret: SECRET,
      issuer: "https://other.example",
      now: () => START_MS,
    });
    expect(codeOf(() => jwt.verify(other.mint(member).token))).toBe("INVALID_JWT");
    expect(codeOf(() => jwt.verify(elsewhere.mint(member).token))).toBe("INVALID_JWT");
    const [, payload] = jwt.mint(member).token.split(".");
    const none = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${payload}.`;
    expect(codeOf(() => jwt.verify(none))).toBe("INVALID_JWT");
  });

  it.each([0, -1, 1.5, Number.NaN])("refuses lifetimeSecs %s", (lifetimeSecs) => {
    expect(() => service({ lifetimeSecs })).toThrow(RangeError);
  });
});

describe("createJWTService resolver", () => {
  it("resolves a JWT to its caller", () => {
    const { jwt } = service();
    expect(jwt.resolver()(jwt.mint(member).token)).toEqual(
      createAuthContext({ userId: "user_1", roles: ["member"], via: "jwt" }),
    );
  });

  it.each(["svc_0123456789abcdef", "not a jwt", "a.b", "a.b.c.d", ""])(
    "passes %j on to the next resolver",
    (token) => {
      expect(service().jwt.resolver()(token)).toBeNull();
    },
  );

  it.each(["a.b.c", "..", "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.", "pk.key_abcdefgh.secret"])(
    "never lets the JWT-shaped %j fall through: it throws INVALID_JWT",
    (token) => {
      const { jwt } = service();
      expect(jwt.isJWTShaped(token)).toBe(true);
      expect(codeOf(() => jwt.resolver()(token))).toBe("INVALID_JWT");
    },
  );
});

describe("createJWTService misconfiguration", () => {
  const signed = signJWT(
    { sub: "user_1", iat: START, exp: START + 3600, iss: ISSUER, roles: [] },
    createHS256Key(SECRET),
  );

  it.each<[string, string | undefined]>([
    ["unset", undefined],
    ["empty", ""],
  ])("with the secret %s: the resolver passes every token on, mint is 501", (_name, secret) => {
    const { jwt } = service({ secret });
    for (const token of [signed, "a.b.c", "svc_x"]) expect(jwt.resolver()(token)).toBeNull();
    try {
      jwt.mint(member);
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ code: "JWT_NOT_CONFIGURED", status: 501, expose: true });
    }
    expect(codeOf(() => jwt.verify(signed))).toBe("INVALID_JWT");
  });

  it.each<[string, string | undefined]>([
    ["unset", undefined],
    ["empty", ""],
  ])(
    "with the secret set and the issuer %s: every JWT and every mint is refused",
    (_name, issuer) => {
      const { jwt } = service({ issuer });
      for (const token of [signed, "a.b.c", "..", "garbage"]) {
        expect(codeOf(() => jwt.verify(token))).toBe("JWT_MISCONFIGURED");
      }
      expect(codeOf(() => jwt.resolver()(signed))).toBe("JWT_MISCONFIGURED");
      expect(jwt.resolver()("svc_x")).toBeNull();
      try {
        jwt.mint(member);
        expect.unreachable();
      } catch (error) {
        expect(error).toMatchObject({ code: "JWT_MISCONFIGURED", status: 401, expose: true });
      }
    },
  );
});

describe("createJWTService verified-token memory", () => {
  it("refuses a remembered token once it expires", () => {
    const { jwt, clock } = service({ lifetimeSecs: 60 });
    const { token } = jwt.mint(member);
    expect(jwt.verify(token).userId).toBe("user_1");
    expectValidForAMinute(jwt, clock, token);
  });

  it("never lets a tampered copy of a remembered token through", () => {
    const { jwt } = service();
    const { token } = jwt.mint(member);
    jwt.verify(token);
    const [header, , signature] = token.split(".");
    const escalated = Buffer.from(
      JSON.stringify({ ...JSON.parse(payloadOf(token)), roles: ["admin"] }),
    ).toString("base64url");
    expect(codeOf(() => jwt.verify(`${header}.${escalated}.${signature}`))).toBe("INVALID_JWT");
    expect(jwt.verify(token).roles).toEqual(["member"]);
  });
});
