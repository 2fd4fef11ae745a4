import { createHash } from "node:crypto";
import { decodeBase32IgnorePadding } from "@oslojs/encoding";
import { generateTOTP } from "@oslojs/otp";
import {
  type AuthContext,
  adminAuth,
  type Manifest,
  type ManifestInput,
  parseManifest,
} from "@svc/schema";
import {
  createStore,
  dialectFor,
  type EntityTables,
  type Row,
  type Store,
  type StoreDatabase,
} from "@svc/store";
import { openPostgres } from "@svc/store/pg";
import { openSqlite } from "@svc/store/sqlite";
import {
  openTestDatabase,
  type TestDatabase,
  type TestDatabaseTarget,
  testDatabases,
} from "@svc/tooling/databases";
import { userEntity } from "@svc/tooling/manifests";
import { fixturePerTest } from "@svc/tooling/per-test";
import { codedRejectionOf } from "@svc/tooling/thrown";
import type { Kysely } from "kysely";
import { expect, vi } from "vitest";
import {
  type Auth,
  type AuthDatabase,
  AuthError,
  type AuthErrorCode,
  type AuthOptions,
  type AuthTables,
  authErrorCodes,
  type ClientInfo,
  createAuth,
  createDevInbox,
  type DevInbox,
  type EmailMessage,
  type EmailTransport,
  normalizeEmail,
  type SignIn,
  type SignInResult,
} from "../src/index.js";

/** Every database the auth suites run on: SQLite, plus Postgres with `SVC_TEST_DATABASE_URL`. */
export const databases: TestDatabase[] = testDatabases();

/** A whole second, so `emailVerified` (second precision) equals the clock exactly. */
export const START = Date.UTC(2026, 10, 25, 10, 0, 0);

/** The deployment secret of every test instance (at least 32 characters). */
export const SECRET = "auth-core test secret, 32 characters or more";

export const FROM = "svc <a@b.c>";

/** The manifest of the suites: a `User` as the spec describes it, plus `phone`. */
export const userManifest = {
  manifest_version: 1,
  name: "auth-test",
  version: "1",
  entities: [userEntity({ name: "phone", type: "string", optional: true })],
} satisfies ManifestInput;

/** The injectable clock every test advances instead of sleeping. */
export interface TestClock {
  /** Milliseconds since the epoch. */
  now(): number;
  advance(ms: number): void;
  set(ms: number): void;
  /** The clock as the spec's `YYYY-MM-DDTHH:MM:SSZ`. */
  iso(): string;
}

export function createClock(start = START): TestClock {
  let current = start;
  return {
    now: () => current,
    advance: (ms) => {
      current += ms;
    },
    set: (ms) => {
      current = ms;
    },
    iso: () => new Date(current).toISOString().replace(/\.\d{3}Z$/, "Z"),
  };
}

/** An email transport delivering to a dev inbox, that a test can make fail. */
export interface TestMailer extends EmailTransport {
  /** While set, `send` rejects with it and delivers nothing. */
  failWith: unknown;
}

export function createTestMailer(inbox: DevInbox): TestMailer {
  const mailer: TestMailer = {
    name: "test-mailer",
    failWith: undefined,
    async send(message: EmailMessage): Promise<void> {
      if (mailer.failWith !== undefined) throw mailer.failWith;
      await inbox.send(message);
    },
  };
  return mailer;
}

/** An open connection to the test database with a store and an `Auth` over it. */
export interface AuthConnection {
  readonly store: Store;
  readonly auth: Auth;
  /** The store's own kysely instance. */
  readonly db: Kysely<EntityTables>;
  /** What `createAuth` was given as `database`. */
  readonly database: AuthDatabase;
  /** auth-core's session-store tables (sessions, codes, rate limits), scoped to where they live (`auth` on SQLite). */
  readonly tables: Kysely<AuthTables>;
  /** auth-core's account tables (password hashes), always in the application database. */
  readonly accountTables: Kysely<AuthTables>;
  /** The session store's schema, untyped, for the migration history table beside its tables. */
  readonly authSchema: Kysely<EntityTables>;
  /** Runs `store.migrate({ packages: auth.migrations })`. */
  migrate(): Promise<readonly string[]>;
  /** Another `Auth` over this connection's store and database (same clock and mailer by default). */
  createAuth(overrides?: Partial<Omit<AuthOptions, "store" | "database">>): Auth;
  /** A store with another manifest over this connection (not migrated). */
  storeFor(manifest: ManifestInput): Store;
  /** Closes this connection; safe to call twice. */
  close(): Promise<void>;
}

/** A signed-in user, as a test needs it. */
export interface SignedIn {
  readonly token: string;
  readonly userId: string;
  /** What `auth.resolveSession(token)` answered. */
  readonly context: AuthContext;
}

/** What each test gets: a fresh, migrated database with auth on it. */
export interface AuthFixture extends AuthConnection, AsyncDisposable {
  readonly name: TestDatabase["name"];
  readonly target: TestDatabaseTarget;
  readonly clock: TestClock;
  /** Where the mailer delivers; newest message first. */
  readonly inbox: DevInbox;
  readonly mailer: TestMailer;
  /** Opens another connection to the same database (the same files on SQLite), migrated by default. */
  connect(options?: { migrate?: boolean }): Promise<AuthConnection>;
  /** Closes the fixture's own connection only (a process stopping), keeping the database. */
  disconnect(): Promise<void>;
  /** The 6-digit code in the newest message sent to `to`. */
  lastCode(to: string): string;
  /** The sign-in link in the newest message sent to `to`. */
  lastLink(to: string): URL;
  /** Signs `email` in with a magic code (spends that address's magic cooldown). */
  signIn(email: string, auth?: Auth): Promise<SignedIn>;
  /**
   * Registers `email` with `password` and verifies the address from that
   * session (the legitimate path: register, then prove your own address);
   * spends the address's verification cooldown.
   */
  registerVerified(email: string, password: string, client?: ClientInfo): Promise<SignedIn>;
  /** Inserts a `User` row through the store, as the admin. */
  insertUser(fields: Record<string, unknown>): Promise<Row>;
  /** Closes every connection and drops the database. */
  close(): Promise<void>;
}

export interface AuthFixtureOptions {
  /** Default `userManifest`. */
  readonly manifest?: ManifestInput;
  /** SQLite: keep the auth tables in a file beside the database instead of in memory. */
  readonly authFile?: boolean;
  /** Run `store.migrate({ packages: auth.migrations })`; default true. */
  readonly migrate?: boolean;
  /** Options of the fixture's `Auth` beyond the defaults. */
  readonly auth?: Partial<Omit<AuthOptions, "store" | "database">>;
}

const CODE = /\b(\d{6})\b/;
const LINK = /https?:\/\/\S+/;

function newestTo(inbox: DevInbox, to: string): string {
  const message = inbox.messages().find((candidate) => candidate.to === to);
  if (message === undefined) throw new Error(`no message was sent to ${to}`);
  return message.body;
}

/** SHA-256 hex, what the sessions table keeps instead of a token. */
export function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/**
 * Opens a fresh database on `database`, builds a store and an `Auth` over it
 * and migrates both. Close it (or `await using` it) to drop everything.
 */
export async function openAuthFixture(
  database: TestDatabase,
  options: AuthFixtureOptions = {},
): Promise<AuthFixture> {
  const target = await database.create();
  const manifest: Manifest = parseManifest(options.manifest ?? userManifest);
  const clock = createClock();
  const inbox = createDevInbox({ log: () => {}, now: clock.now });
  const mailer = createTestMailer(inbox);
  const connections: StoreDatabase[] = [];
  // SQLite only: where the auth tables live (Postgres keeps them in the database itself).
  const authFile = options.authFile === true ? "auth.db" : ":memory:";
  const baseOptions = {
    secret: SECRET,
    now: clock.now,
    email: { transport: mailer, from: FROM, devInbox: undefined },
    ...options.auth,
  };

  async function connect(migrate: boolean): Promise<AuthConnection> {
    const opened: StoreDatabase = openTestDatabase(
      target,
      { openSqlite, openPostgres },
      { max: 4, attach: { auth: authFile } },
    );
    connections.push(opened);
    const dialect = dialectFor(opened.dialect);
    const schema = dialect.attachedSchema("auth");
    const authDatabase: AuthDatabase = {
      db: opened.db,
      dialect: opened.dialect,
      ...(schema !== undefined && { schema }),
    };
    const clockDate = () => new Date(clock.now());
    const store = createStore({
      db: opened.db,
      dialect: opened.dialect,
      manifest,
      clock: clockDate,
    });
    const make = (overrides: Partial<Omit<AuthOptions, "store" | "database">> = {}): Auth =>
      createAuth({ ...baseOptions, ...overrides, store, database: authDatabase });
    const auth = make();
    const migrateAll = async (): Promise<readonly string[]> =>
      (await store.migrate({ packages: auth.migrations })).applied;
    if (migrate) await migrateAll();
    const authSchema = dialect.withAttachedSchema(opened.db, schema);
    return {
      store,
      auth,
      db: opened.db,
      database: authDatabase,
      tables: authSchema as unknown as Kysely<AuthTables>,
      accountTables: opened.db as unknown as Kysely<AuthTables>,
      authSchema,
      migrate: migrateAll,
      createAuth: make,
      storeFor: (input) =>
        createStore({
          db: opened.db,
          dialect: opened.dialect,
          manifest: parseManifest(input),
          clock: clockDate,
        }),
      close: () => opened.close(),
    };
  }

  let primary: AuthConnection;
  try {
    primary = await connect(options.migrate ?? true);
  } catch (error) {
    for (const opened of connections) await opened.close();
    await database.destroy(target);
    throw error;
  }
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    for (const opened of connections.reverse()) await opened.close();
    await database.destroy(target);
  };
  const fixture: AuthFixture = {
    ...primary,
    name: database.name,
    target,
    clock,
    inbox,
    mailer,
    connect: (connectOptions = {}) => connect(connectOptions.migrate ?? true),
    disconnect: primary.close,
    lastCode(to) {
      const body = newestTo(inbox, to);
      const code = CODE.exec(body)?.[1];
      if (code === undefined) throw new Error(`no code in the message to ${to}`);
      return code;
    },
    lastLink(to) {
      const link = LINK.exec(newestTo(inbox, to))?.[0];
      if (link === undefined) throw new Error(`no link in the message to ${to}`);
      return new URL(link);
    },
    async signIn(email, auth = primary.auth) {
      await auth.sendMagicCode({ email }, { exposeDevCode: false });
      const { token, user_id } = sessionOf(
        await auth.verifyMagicCode({ email, code: fixture.lastCode(normalizeEmail(email)) }, {}),
      );
      const context = await auth.resolveSession(token);
      if (context === null) throw new Error("a fresh session did not resolve");
      return { token, userId: user_id, context };
    },
    async registerVerified(email, password, client = {}) {
      const { token, user_id } = await primary.auth.registerPassword({ email, password }, client);
      const context = await primary.auth.resolveSession(token);
      if (context === null) throw new Error("a fresh session did not resolve");
      await primary.auth.sendVerification(context, { exposeDevCode: false });
      await primary.auth.verifyEmail(context, { code: fixture.lastCode(normalizeEmail(email)) });
      return { token, userId: user_id, context };
    },
    insertUser: (fields) => primary.store.transaction(adminAuth, (tx) => tx.insert("User", fields)),
    close,
    [Symbol.asyncDispose]: close,
  };
  return fixture;
}

/**
 * Registers hooks giving every test of the enclosing `describe` a fresh
 * fixture on `database` (closed after the test), and returns its accessor.
 */
export function useAuthFixture(
  database: TestDatabase,
  options: AuthFixtureOptions = {},
): () => AuthFixture {
  return fixturePerTest("auth", async (defer) => {
    const fixture = await openAuthFixture(database, options);
    defer(() => fixture.close());
    return fixture;
  });
}

export { rejectionOf } from "@svc/tooling/thrown";

/**
 * Awaits `promise`, expects an `AuthError` with `code` and `status` (default:
 * the code's status in the table) and returns it.
 */
export async function expectAuthError(
  promise: Promise<unknown>,
  code: AuthErrorCode,
  status: number = authErrorCodes[code].status,
): Promise<AuthError> {
  return codedRejectionOf(AuthError, promise, { code, status });
}

/** Expects a 429 `RATE_LIMITED` whose `retry_after_secs` and `Retry-After` agree; returns the seconds. */
export async function expectRateLimited(promise: Promise<unknown>): Promise<number> {
  const error = await expectAuthError(promise, "RATE_LIMITED", 429);
  const seconds = error.details?.retry_after_secs;
  expect(seconds).toBeTypeOf("number");
  expect(error.headers).toEqual({ "Retry-After": String(seconds) });
  return seconds as number;
}

/** A 6-digit code other than `code`. */
export function otherCode(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, "0");
}

/** The session of a sign-in that needed no second factor (the fixture enrols none). */
export function sessionOf(result: SignInResult): SignIn {
  if (!("token" in result)) throw new Error("expected a session, got a second-factor challenge");
  return result;
}

/** What an authenticator app shows for `secret` (base32) at `ms`: @oslojs/otp at that wall-clock time. */
export function totpCodeAt(secret: string, ms: number): string {
  vi.useFakeTimers({ now: ms, toFake: ["Date"] });
  try {
    return generateTOTP(decodeBase32IgnorePadding(secret), 30, 6);
  } finally {
    vi.useRealTimers();
  }
}
