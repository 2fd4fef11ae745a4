import { openSqlite } from "@svc/store/sqlite";
import type { Kysely } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AuthError } from "../errors.js";
import { deriveKey } from "../secrets.js";
import { normalizeBackupCode } from "./backup-codes.js";
import { sealSecret } from "./secret-box.js";
import { type Factor, readFactor, spendFactor } from "./spend-factor.js";
import { timeStepAt, totpCodeAt } from "./totp-code.js";
import { backupCodeHash, readTotp, type TotpRuntime, totpTablesOf } from "./totp-runtime.js";
import { type TotpTables, totpMigrations } from "./totp-tables.js";

const SECRET = "spend-factor test secret, at least 32 characters";
const NOW = Date.UTC(2026, 10, 25, 10, 0, 0);
const USER = "user-1";
const KEY = new Uint8Array(Array.from({ length: 20 }, (_, i) => 255 - i));
const BACKUP = "abcde-fghjk";

let opened: ReturnType<typeof openSqlite>;
let runtime: TotpRuntime;
let tables: Kysely<TotpTables>;

beforeEach(async () => {
  opened = openSqlite(":memory:");
  runtime = {
    database: { db: opened.db, dialect: "sqlite" },
    secretKey: deriveKey(SECRET, "totp secrets"),
    codeKey: deriveKey(SECRET, "totp codes"),
    issuer: "test",
    now: () => NOW,
    createSession: () => Promise.reject(new Error("not used")),
    emailOf: async () => null,
  };
  for (const migration of totpMigrations().migrations) {
    await migration.up(opened.db, { dialect: "sqlite", schema: undefined });
  }
  tables = totpTablesOf(runtime);
  await tables
    .insertInto("svc_totp")
    .values({
      user_id: USER,
      secret_enc: sealSecret(runtime.secretKey, KEY, USER),
      enabled_at: NOW,
      created_at: NOW,
      last_step: null,
      attempts: 0,
      attempts_since: null,
    })
    .execute();
  await tables
    .insertInto("svc_backup_codes")
    .values({
      id: "b1",
      user_id: USER,
      code_hash: backupCodeHash(runtime, USER, normalizeBackupCode(BACKUP) ?? ""),
      used_at: null,
    })
    .execute();
});

afterEach(async () => {
  await opened.close();
});

async function spend(factor: Factor, now = NOW): Promise<boolean> {
  const row = await readTotp(tables, USER);
  if (row === undefined) throw new Error("no TOTP row");
  return spendFactor(runtime, tables, { row, factor, now });
}

describe("spendFactor", () => {
  it("accepts a code once: the same step is refused the second time (replay)", async () => {
    const code = totpCodeAt(KEY, NOW);
    expect(await spend({ method: "totp", code })).toBe(true);
    expect((await readTotp(tables, USER))?.last_step).toBe(timeStepAt(NOW));
    expect(await spend({ method: "totp", code })).toBe(false);
    // Still refused later in the window, where it would otherwise match as the previous step.
    expect(await spend({ method: "totp", code }, NOW + 30_000)).toBe(false);
  });

  it("refuses an older step's code after a newer one was accepted", async () => {
    expect(await spend({ method: "totp", code: totpCodeAt(KEY, NOW + 30_000) })).toBe(true);
    expect(await spend({ method: "totp", code: totpCodeAt(KEY, NOW) })).toBe(false);
  });

  it("accepts the next step's code after one was accepted", async () => {
    expect(await spend({ method: "totp", code: totpCodeAt(KEY, NOW) })).toBe(true);
    expect(await spend({ method: "totp", code: totpCodeAt(KEY, NOW + 30_000) }, NOW + 30_000)).toBe(
      true,
    );
  });

  it("refuses a replay raced against a stale read of last_step", async () => {
    const stale = await readTotp(tables, USER);
    if (stale === undefined) throw new Error("no TOTP row");
    const factor: Factor = { method: "totp", code: totpCodeAt(KEY, NOW) };
    expect(await spendFactor(runtime, tables, { row: stale, factor, now: NOW })).toBe(true);
    expect(await spendFactor(runtime, tables, { row: stale, factor, now: NOW })).toBe(false);
  });

  it("spends a backup code once, in any letter case and grouping", async () => {
    expect(await spend({ method: "backup_code", code: "ABCDE FGHJK" })).toBe(true);
    const row = await tables.selectFrom("svc_backup_codes").selectAll().executeTakeFirst();
    expect(Number(row?.used_at)).toBe(NOW);
    expect(await spend({ method: "backup_code", code: BACKUP })).toBe(false);
  });

  it.each(["abcde-fghjm", "not a code", ""])("refuses the backup code %j", async (code) => {
    expect(await spend({ method: "backup_code", code })).toBe(false);
  });

  it("refuses another user's backup code (the HMAC binds the user)", async () => {
    expect(backupCodeHash(runtime, "user-2", "abcdefghjk")).not.toBe(
      backupCodeHash(runtime, USER, "abcdefghjk"),
    );
  });
});

describe("readFactor", () => {
  it.each([
    [{ code: "123456" }, { method: "totp", code: "123456" }],
    [{ code: " 123456 " }, { method: "totp", code: "123456" }],
    [{ code: "abcde-fghjk" }, { method: "backup_code", code: "abcde-fghjk" }],
    [
      { backup_code: "abcde-fghjk", code: "123456" },
      { method: "backup_code", code: "abcde-fghjk" },
    ],
  ])("reads %j", (body, factor) => {
    expect(readFactor(body)).toEqual(factor);
  });

  it.each([{}, { code: "" }, { code: 123456 }, { backup_code: null }])(
    "answers MISSING_CODE for %j",
    (body) => {
      expect(() => readFactor(body)).toThrow(
        expect.objectContaining({ constructor: AuthError, code: "MISSING_CODE", status: 400 }),
      );
    },
  );
});
