import { adminAuth, type ManifestInput } from "@svc/schema";
import type { Row } from "@svc/store";
import { describe, expect, it } from "vitest";
import {
  type AuthFixture,
  databases,
  expectAuthError,
  rejectionOf,
  useAuthFixture,
} from "./fixture.js";
import { accountFields, todoEntity, userManifestWith } from "./manifests.js";

// Account deletion in the core, on every database: one transaction removes
// the user's sessions, API keys, linked accounts, trusted devices, password
// and User row, writes an AccountDelete audit event that outlives them, and
// leaves the application's own rows alone unless a before-delete hook on
// User removes them. A failing hook or a referenced User row rolls all of it
// back.

const PASSWORD = "a good long password";

const todoManifest = userManifestWith(accountFields, todoEntity);

/** The same app plus a Profile whose `userId` references User. */
const referencingManifest = {
  ...todoManifest,
  entities: [
    ...todoManifest.entities,
    {
      name: "Profile",
      fields: [
        { name: "bio", type: "string" },
        { name: "userId", type: "id", target: "User" },
      ],
    },
  ],
} satisfies ManifestInput;

/** Everything one user holds, as the test created it. */
interface Account {
  readonly userId: string;
  readonly email: string;
  /** The two session tokens: [password sign-up, magic-code sign-in]. */
  readonly tokens: readonly [string, string];
  readonly keys: readonly string[];
  readonly todoIds: readonly string[];
}

async function insertTodo(f: AuthFixture, ownerId: string, title: string): Promise<Row> {
  return f.store.transaction(adminAuth, (tx) => tx.insert("Todo", { title, ownerId }));
}

/**
 * Two sessions (a password sign-up whose address is then verified, then a
 * magic-code sign-in), two API keys, one linked account, one trusted
 * device and one todo.
 */
async function createAccount(f: AuthFixture, email: string): Promise<Account> {
  const registered = await f.registerVerified(email, PASSWORD);
  const signedIn = await f.signIn(email);
  expect(signedIn.userId).toBe(registered.userId);
  const userId = registered.userId;
  const keys: string[] = [];
  for (const name of ["one", "two"]) {
    keys.push((await f.auth.createApiKey(signedIn.context, { name })).key);
  }
  await f.accountTables
    .insertInto("svc_linked_accounts")
    .values({
      id: `link-${email}`,
      user_id: userId,
      provider: "github",
      provider_user_id: `gh-${email}`,
      email,
      created_at: Math.floor(f.clock.now() / 1000),
    })
    .execute();
  await f.tables
    .insertInto("svc_trusted_device")
    .values({
      id: `device-${email}`,
      user_id: userId,
      created_at: f.clock.now(),
      expires_at: f.clock.now() + 30 * 86_400_000,
      user_agent: "test",
    })
    .execute();
  const todo = await insertTodo(f, userId, `todo of ${email}`);
  return {
    userId,
    email,
    tokens: [registered.token, signedIn.token],
    keys,
    todoIds: [todo.id],
  };
}

/** How many rows of `userId` each table still holds. */
async function remaining(f: AuthFixture, userId: string) {
  const count = async (rows: Promise<unknown[]>): Promise<number> => (await rows).length;
  return {
    sessions: await count(
      f.tables.selectFrom("svc_sessions").select("id").where("user_id", "=", userId).execute(),
    ),
    api_keys: await count(
      f.tables.selectFrom("svc_api_keys").select("id").where("user_id", "=", userId).execute(),
    ),
    linked_accounts: await count(
      f.accountTables
        .selectFrom("svc_linked_accounts")
        .select("id")
        .where("user_id", "=", userId)
        .execute(),
    ),
    trusted_devices: await count(
      f.tables
        .selectFrom("svc_trusted_device")
        .select("id")
        .where("user_id", "=", userId)
        .execute(),
    ),
    passwords: await count(
      f.accountTables
        .selectFrom("svc_passwords")
        .select("user_id")
        .where("user_id", "=", userId)
        .execute(),
    ),
    user: (await f.store.systemReader().get("User", userId)) === null ? 0 : 1,
  };
}

const everything = {
  sessions: 2,
  api_keys: 2,
  linked_accounts: 1,
  trusted_devices: 1,
  passwords: 1,
  user: 1,
};
const nothing = {
  sessions: 0,
  api_keys: 0,
  linked_accounts: 0,
  trusted_devices: 0,
  passwords: 0,
  user: 0,
};

async function contextOf(f: AuthFixture, token: string) {
  const context = await f.auth.resolveSession(token);
  if (context === null) throw new Error("the session did not resolve");
  return context;
}

async function accountDeleteEvents(f: AuthFixture, userId: string) {
  const { events } = await f.auth.listAudit(adminAuth, {
    user_id: userId,
    kind: "AccountDelete",
  });
  return events;
}

async function todosOf(f: AuthFixture, ownerId: string): Promise<string[]> {
  const page = await f.store.systemReader().query("Todo", { where: { ownerId } });
  return page.rows.map((row) => row.id);
}

/** Every credential of the account still works. */
async function expectIntact(f: AuthFixture, account: Account): Promise<void> {
  expect(await remaining(f, account.userId)).toEqual(everything);
  for (const token of account.tokens) {
    expect(await f.auth.resolveSession(token)).toMatchObject({ userId: account.userId });
  }
  for (const key of account.keys) {
    expect(await f.auth.resolveApiKey(key)).toMatchObject({ userId: account.userId });
  }
  expect(await accountDeleteEvents(f, account.userId)).toEqual([]);
}

describe.each(databases)("account deletion on $name", (database) => {
  const fixture = useAuthFixture(database, { manifest: todoManifest });

  it("answers exact counts and leaves no row of the user behind", async () => {
    const f = fixture();
    const account = await createAccount(f, "gone@example.com");
    f.clock.advance(61_000);
    const bystander = await createAccount(f, "stays@example.com");
    expect(await remaining(f, account.userId)).toEqual(everything);

    const caller = await contextOf(f, account.tokens[0]);
    expect(await f.auth.deleteAccount(caller, "203.0.113.7")).toEqual({
      deleted: true,
      revoked_sessions: 2,
      revoked_api_keys: 2,
      unlinked_accounts: 1,
    });
    expect(await remaining(f, account.userId)).toEqual(nothing);
    expect(await remaining(f, bystander.userId)).toEqual(everything);
  });

  it("writes an AccountDelete event with the counts, which outlives the user", async () => {
    const f = fixture();
    const account = await createAccount(f, "gone@example.com");
    f.clock.advance(5_000);
    await f.auth.deleteAccount(await contextOf(f, account.tokens[1]), "203.0.113.7");
    const events = await accountDeleteEvents(f, account.userId);
    expect(events).toEqual([
      {
        id: expect.any(String),
        user_id: account.userId,
        kind: "AccountDelete",
        at: new Date(f.clock.now()).toISOString(),
        data: { sessions: 2, api_keys: 2, linked_accounts: 1, trusted_devices: 1 },
        ip: "203.0.113.7",
      },
    ]);
    // The user's earlier events survive too.
    const all = await f.auth.listAudit(adminAuth, { user_id: account.userId });
    expect(all.events.map((event) => event.kind)).toContain("SignUp");
  });

  it("refuses every old session and key at once, cached or not", async () => {
    const f = fixture();
    const account = await createAccount(f, "gone@example.com");
    // Resolve each first, so the SQLite caches hold them.
    for (const token of account.tokens) await contextOf(f, token);
    for (const key of account.keys) await f.auth.resolveApiKey(key);
    await f.auth.deleteAccount(await contextOf(f, account.tokens[0]));
    for (const token of account.tokens) expect(await f.auth.resolveSession(token)).toBeNull();
    for (const key of account.keys) {
      await expectAuthError(f.auth.resolveApiKey(key), "INVALID_API_KEY", 401);
    }
    await expectAuthError(
      f.auth.loginPassword({ email: account.email, password: PASSWORD }, {}),
      "INVALID_CREDENTIALS",
    );
  });

  it("keeps the application's own rows of the user without a hook", async () => {
    const f = fixture();
    const account = await createAccount(f, "gone@example.com");
    await f.auth.deleteAccount(await contextOf(f, account.tokens[0]));
    expect(await todosOf(f, account.userId)).toEqual(account.todoIds);
  });

  it("runs a before-delete hook on User in the same transaction", async () => {
    const f = fixture();
    const account = await createAccount(f, "gone@example.com");
    await insertTodo(f, account.userId, "second todo");
    f.clock.advance(61_000);
    const bystander = await createAccount(f, "stays@example.com");
    const seen: Row[] = [];
    f.store.onBeforeDelete("User", async ({ row, db }) => {
      seen.push(row);
      const page = await db.query("Todo", { where: { ownerId: row.id } });
      for (const todo of page.rows) await db.delete("Todo", todo.id);
    });
    expect(await todosOf(f, account.userId)).toHaveLength(2);
    const answer = await f.auth.deleteAccount(await contextOf(f, account.tokens[0]));
    expect(answer).toMatchObject({ deleted: true, revoked_sessions: 2 });
    expect(seen).toEqual([expect.objectContaining({ id: account.userId, email: account.email })]);
    expect(await todosOf(f, account.userId)).toEqual([]);
    expect(await todosOf(f, bystander.userId)).toEqual(bystander.todoIds);
    expect(await remaining(f, account.userId)).toEqual(nothing);
  });

  it("a hook that throws rolls everything back, its own deletes included", async () => {
    const f = fixture();
    const account = await createAccount(f, "kept@example.com");
    // A cached session and key must survive the failed deletion too.
    await contextOf(f, account.tokens[1]);
    await f.auth.resolveApiKey(account.keys[0] ?? "");
    const refusal = new Error("purge refused");
    const unregister = f.store.onBeforeDelete("User", async ({ row, db }) => {
      const page = await db.query("Todo", { where: { ownerId: row.id } });
      for (const todo of page.rows) await db.delete("Todo", todo.id);
      throw refusal;
    });
    const error = await rejectionOf(f.auth.deleteAccount(await contextOf(f, account.tokens[0])));
    expect(error).toBe(refusal);
    await expectIntact(f, account);
    expect(await todosOf(f, account.userId)).toEqual(account.todoIds);

    // Without the hook the same caller can delete the account.
    unregister();
    expect(await f.auth.deleteAccount(await contextOf(f, account.tokens[0]))).toEqual({
      deleted: true,
      revoked_sessions: 2,
      revoked_api_keys: 2,
      unlinked_accounts: 1,
    });
  });

  it("a signed-up-again address is a new user", async () => {
    const f = fixture();
    const account = await createAccount(f, "again@example.com");
    await f.auth.deleteAccount(await contextOf(f, account.tokens[0]));
    f.clock.advance(61_000);
    const again = await f.signIn("again@example.com");
    expect(again.userId).not.toBe(account.userId);
    expect(await f.auth.listApiKeys(again.context)).toEqual([]);
  });
});

describe.each(databases)("account deletion of a referenced User on $name", (database) => {
  const fixture = useAuthFixture(database, { manifest: referencingManifest });

  it("is 400 ROW_REFERENCED and deletes nothing", async () => {
    const f = fixture();
    const account = await createAccount(f, "referenced@example.com");
    await f.store.transaction(adminAuth, (tx) =>
      tx.insert("Profile", { bio: "hi", userId: account.userId }),
    );
    const error = await rejectionOf(f.auth.deleteAccount(await contextOf(f, account.tokens[0])));
    expect(error).toMatchObject({ code: "ROW_REFERENCED", status: 400, expose: true });
    await expectIntact(f, account);
    expect(await todosOf(f, account.userId)).toEqual(account.todoIds);
  });

  it("rolls back what a hook removed before the reference was found", async () => {
    const f = fixture();
    const account = await createAccount(f, "referenced@example.com");
    await f.store.transaction(adminAuth, (tx) =>
      tx.insert("Profile", { bio: "hi", userId: account.userId }),
    );
    f.store.onBeforeDelete("User", async ({ row, db }) => {
      const page = await db.query("Todo", { where: { ownerId: row.id } });
      for (const todo of page.rows) await db.delete("Todo", todo.id);
    });
    const error = await rejectionOf(f.auth.deleteAccount(await contextOf(f, account.tokens[0])));
    expect(error).toMatchObject({ code: "ROW_REFERENCED", status: 400 });
    await expectIntact(f, account);
    expect(await todosOf(f, account.userId)).toEqual(account.todoIds);
  });

  it("succeeds once a hook removes the referencing rows", async () => {
    const f = fixture();
    const account = await createAccount(f, "referenced@example.com");
    const profile = await f.store.transaction(adminAuth, (tx) =>
      tx.insert("Profile", { bio: "hi", userId: account.userId }),
    );
    f.store.onBeforeDelete("User", async ({ row, db }) => {
      const page = await db.query("Profile", { where: { userId: row.id } });
      for (const found of page.rows) await db.delete("Profile", found.id);
    });
    expect(await f.auth.deleteAccount(await contextOf(f, account.tokens[0]))).toMatchObject({
      deleted: true,
    });
    expect(await f.store.systemReader().get("Profile", profile.id)).toBeNull();
    expect(await remaining(f, account.userId)).toEqual(nothing);
  });
});
