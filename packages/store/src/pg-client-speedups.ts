import type pg from "pg";
import { COMMIT_WITH_THIS } from "./last-statement.js";
import { createStatementNames } from "./pg-named-statements.js";
import { type Companions, queryWith } from "./pg-pipelined-query.js";

type QueryFunction = (...args: unknown[]) => unknown;

/** The answer a statement that was not sent (or went earlier) gets, as pg shapes one. */
function answered(command: string): pg.QueryResult {
  return { command, rowCount: null, oid: 0, rows: [], fields: [] };
}

function isBare(values: unknown, rest: readonly unknown[]): boolean {
  return (
    rest.length === 0 && (values === undefined || (Array.isArray(values) && values.length === 0))
  );
}

/**
 * Saves round trips and planning on each client the pool connects (its
 * `connect` event), without changing what any transaction does:
 *
 * - A transaction's `begin` is not sent on its own: it travels in one
 *   message with the transaction's first statement (`queryWith`). A
 *   transaction that ends before any statement sends nothing at all.
 * - A statement marked `COMMIT_WITH_THIS` (the last of its transaction)
 *   travels in one message with the `commit`; the transaction's own
 *   `commit` that follows is answered here. So a one-row write through the
 *   store costs two round trips, where `begin`, the insert, the change-log
 *   insert and `commit` took one each.
 * - Repeated writes run as named prepared statements (`createStatementNames`).
 *
 * Calls with a config object, a cursor or a callback pass through (after a
 * deferred `begin`, which is then sent first on its own).
 */
export function speedUpClients(pool: pg.Pool): void {
  const names = createStatementNames();
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as QueryFunction;
    let beginDeferred = false;
    // The marked last statement committed: the caller's `commit` is answered here.
    let committed = false;

    /** A parameterised statement, named when it is a repeated write, with its companions. */
    const sendWith = (text: string, values: unknown[], companions: Companions) => {
      const name = values.length > 0 ? names.nameOf(text) : undefined;
      const config = { text, values, ...(name !== undefined && { name }) };
      const result = queryWith(client, config, companions);
      return name === undefined
        ? result
        : result.catch((error: unknown) => names.failed(text, error));
    };

    const patched: QueryFunction = (text, values, ...rest) => {
      if (typeof text === "string" && isBare(values, rest)) {
        const command = text.trim().toLowerCase();
        if (committed && (command === "commit" || command === "rollback")) {
          // The transaction ended with its last statement. (A rollback
          // here would come too late; the store runs nothing after it.)
          committed = false;
          return Promise.resolve(answered("COMMIT"));
        }
        if (command === "begin" && !beginDeferred) {
          beginDeferred = true;
          return Promise.resolve(answered("BEGIN"));
        }
        if (beginDeferred && (command === "commit" || command === "rollback")) {
          // Nothing ran: there is no transaction to end.
          beginDeferred = false;
          return Promise.resolve(answered(command.toUpperCase()));
        }
      }
      const plain =
        typeof text === "string" &&
        rest.length === 0 &&
        (values === undefined || Array.isArray(values));
      const params = (values ?? []) as unknown[];
      if (plain && text.startsWith(COMMIT_WITH_THIS)) {
        const before = beginDeferred;
        beginDeferred = false;
        return sendWith(text, params, {
          ...(before && { before: "begin" }),
          after: "commit",
        }).then((result) => {
          committed = true;
          return result;
        });
      }
      if (!beginDeferred) {
        if (plain && params.length > 0 && names.nameOf(text) !== undefined) {
          return sendWith(text, params, {});
        }
        return query(text, values, ...rest);
      }
      beginDeferred = false;
      if (plain) return sendWith(text, params, { before: "begin" });
      // A cursor or a callback: the begin goes first on its own (pg runs
      // a client's queries in the order they are given).
      (query("begin") as Promise<unknown>).catch(() => undefined);
      return query(text, values, ...rest);
    };
    (client as unknown as { query: QueryFunction }).query = patched;
  });
}
