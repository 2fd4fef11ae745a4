import type pg from "pg";
import { createStatementNames } from "./pg-named-statements.js";
import { queryWith } from "./pg-pipelined-query.js";

type QueryFunction = (...args: unknown[]) => unknown;

/** The answer a statement that was not sent (yet) gets, as pg shapes one. */
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
 * `connect` event), without changing what any statement does:
 *
 * - A transaction's `begin` is not sent on its own: it travels in one
 *   message with the transaction's first statement (`queryWith`), so a
 *   one-statement write costs two round trips, not three. A transaction
 *   that ends before any statement sends nothing at all.
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

    const send = (text: unknown, values: unknown, rest: unknown[]): unknown => {
      if (typeof text === "string" && Array.isArray(values) && values.length > 0) {
        const name = names.nameOf(text);
        if (name !== undefined && rest.length === 0) {
          return queryWith(client, { name, text, values }).catch((error: unknown) =>
            names.failed(text, error),
          );
        }
      }
      return query(text, values, ...rest);
    };

    const patched: QueryFunction = (text, values, ...rest) => {
      if (typeof text === "string" && isBare(values, rest)) {
        const command = text.trim().toLowerCase();
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
      if (!beginDeferred) return send(text, values, rest);
      beginDeferred = false;
      if (
        typeof text === "string" &&
        rest.length === 0 &&
        (values === undefined || Array.isArray(values))
      ) {
        const params = (values ?? []) as unknown[];
        const name = params.length > 0 ? names.nameOf(text) : undefined;
        const config = { text, values: params, ...(name !== undefined && { name }) };
        const result = queryWith(client, config, { before: "begin" });
        return name === undefined
          ? result
          : result.catch((error: unknown) => names.failed(text, error));
      }
      // A cursor or a callback: the begin goes first on its own (pg runs
      // a client's queries in the order they are given).
      (query("begin") as Promise<unknown>).catch(() => undefined);
      return send(text, values, rest);
    };
    (client as unknown as { query: QueryFunction }).query = patched;
  });
}
