// The module's own binding: fake timers in a test replace the global one,
// and a group must still run.
import { setImmediate } from "node:timers";
import { type Kysely, sql } from "kysely";
import type { EntityTables } from "./database.js";

/** Work run inside a group's transaction, on the connection that holds it. */
export type GroupWork<T> = (connection: Kysely<EntityTables>) => Promise<T>;

/** Runs transactions on SQLite's single writer, several to one commit (see `createGroupCommit`). */
export interface GroupCommit {
  /**
   * Runs `work` in a transaction of its own as far as the caller can tell:
   * its writes are kept or dropped together, it sees the writes of the
   * transactions before it and none after, and the promise settles only
   * after the commit that holds its writes has returned (or after its own
   * writes were rolled back, when it throws).
   */
  run<T>(work: GroupWork<T>): Promise<T>;
}

/** Options of `createGroupCommit`. */
export interface GroupCommitOptions {
  /** The most transactions one commit holds. Default 64. */
  readonly maxMembers?: number;
  /** Called with the member count after each commit (for tests and metrics). */
  readonly onCommit?: (members: number) => void;
}

interface Member {
  /** Hands the member the connection; settles when its work has. */
  readonly work: GroupWork<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

const DEFAULT_MAX_MEMBERS = 64;

/**
 * Group commit for SQLite's one writer connection.
 *
 * A commit in WAL mode writes every page the transaction changed to the
 * WAL, so a stream of one-row transactions writes the same table and index
 * pages again and again. Transactions that ask for the writer within one
 * event-loop turn (requests that arrived together) are run one after the
 * other inside one SQLite transaction, each in a savepoint of its own, and
 * committed once: a member that throws is rolled back to its savepoint and
 * fails alone; the others are kept.
 *
 * Durability is unchanged: no member's promise resolves before the COMMIT
 * holding its writes has returned, and `synchronous` stays as the
 * connection set it, so a process killed after a write was acknowledged
 * (even by `kill -9`) still has it. When the COMMIT itself fails, every
 * member of that group fails with it (none was acknowledged).
 *
 * Each group takes the connection through kysely (`db.connection()`) and
 * gives it back afterwards, so other users of the same kysely instance
 * (migrations, framework packages' own transactions) wait at most one
 * group. Each member's work runs as a continuation of its caller's own
 * promise chain, so it keeps the caller's async context
 * (`AsyncLocalStorage` stores work as without grouping).
 */
export function createGroupCommit(
  db: Kysely<EntityTables>,
  options: GroupCommitOptions = {},
): GroupCommit {
  const maxMembers = options.maxMembers ?? DEFAULT_MAX_MEMBERS;
  const queue: Member[] = [];
  let draining = false;

  async function statement(connection: Kysely<EntityTables>, text: string): Promise<void> {
    await sql.raw(text).execute(connection);
  }

  async function runAlone(connection: Kysely<EntityTables>, member: Member): Promise<void> {
    try {
      await statement(connection, "begin");
    } catch (error) {
      member.reject(error);
      return;
    }
    let value: unknown;
    try {
      value = await member.work(connection);
    } catch (error) {
      await statement(connection, "rollback").catch(() => undefined);
      member.reject(error);
      return;
    }
    try {
      await statement(connection, "commit");
    } catch (error) {
      await statement(connection, "rollback").catch(() => undefined);
      member.reject(error);
      return;
    }
    options.onCommit?.(1);
    member.resolve(value);
  }

  /**
   * Runs `members` in one transaction. Returns the members that did not
   * get to run because the transaction was lost under them (they go back
   * to the head of the queue).
   */
  async function runTogether(
    connection: Kysely<EntityTables>,
    members: Member[],
  ): Promise<Member[]> {
    try {
      await statement(connection, "begin");
    } catch (error) {
      for (const member of members) member.reject(error);
      return [];
    }
    const kept: { member: Member; value: unknown }[] = [];
    const failKept = (error: unknown): void => {
      for (const { member } of kept) member.reject(error);
    };
    for (const [index, member] of members.entries()) {
      try {
        await statement(connection, "savepoint svc_member");
      } catch (error) {
        await statement(connection, "rollback").catch(() => undefined);
        failKept(error);
        member.reject(error);
        return members.slice(index + 1);
      }
      try {
        const value = await member.work(connection);
        await statement(connection, "release svc_member");
        kept.push({ member, value });
      } catch (error) {
        try {
          await statement(connection, "rollback to svc_member");
          await statement(connection, "release svc_member");
        } catch (rollbackError) {
          // The transaction is gone (SQLite rolls the whole transaction back
          // on some errors, such as a full disk): the members before this
          // one lost their writes too, and none of them was acknowledged.
          await statement(connection, "rollback").catch(() => undefined);
          failKept(rollbackError);
          member.reject(error);
          return members.slice(index + 1);
        }
        member.reject(error);
      }
    }
    try {
      await statement(connection, "commit");
    } catch (error) {
      await statement(connection, "rollback").catch(() => undefined);
      failKept(error);
      return [];
    }
    options.onCommit?.(members.length);
    for (const { member, value } of kept) member.resolve(value);
    return [];
  }

  async function runGroup(): Promise<void> {
    const members = queue.splice(0, maxMembers);
    try {
      await db.connection().execute(async (connection) => {
        if (members.length === 1) {
          const [only] = members as [Member];
          await runAlone(connection, only);
          return;
        }
        const leftOver = await runTogether(connection, members);
        queue.unshift(...leftOver);
      });
    } catch (error) {
      // The connection could not be had (the database was closed).
      for (const member of members) member.reject(error);
    }
  }

  async function drain(): Promise<void> {
    try {
      while (queue.length > 0) await runGroup();
    } finally {
      draining = false;
    }
  }

  return {
    run<T>(work: GroupWork<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        let giveTurn: (connection: Kysely<EntityTables>) => void = () => undefined;
        const turn = new Promise<Kysely<EntityTables>>((resolveTurn) => {
          giveTurn = resolveTurn;
        });
        // A reaction registered here runs in the caller's async context,
        // whoever resolves `turn` (cheaper than binding the function).
        const done = turn.then(work);
        queue.push({
          work: (connection) => {
            giveTurn(connection);
            return done;
          },
          resolve: resolve as (value: unknown) => void,
          reject,
        });
        if (draining) return;
        draining = true;
        // The rest of this event-loop turn's requests get to join the group.
        setImmediate(() => void drain());
      });
    },
  };
}
