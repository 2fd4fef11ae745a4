import pg from "pg";

/** The statement sent in the same message as a query, and whether it goes before or after it. */
export interface Companions {
  /** Runs first (e.g. `begin`); its answer is dropped. */
  readonly before?: string;
  /** Runs last (e.g. `commit`); its answer is dropped, its failure fails the query. */
  readonly after?: string;
}

/** What pg's `Connection` offers a query for the extended protocol (as pg-cursor uses it). */
interface ProtocolConnection {
  parse(query: { text: string; name?: string; types?: unknown[] }): void;
  bind(config: object): void;
  execute(config: { portal?: string; rows?: number }): void;
  sync(): void;
}

/** The parts of pg's `Query` this subclass builds on (not in pg's typings). */
interface QueryInternals {
  readonly portal: string;
  prepare(connection: ProtocolConnection): void;
  handleCommandComplete(message: unknown, connection: ProtocolConnection): void;
}

// Built from the text (pg clones a config object, which costs more than
// the rest of building a query); name and mode are set afterwards.
const Base = pg.Query as unknown as new (
  text: string,
  values: unknown[],
) => pg.Query & QueryInternals & { name?: string; queryMode?: string };

/**
 * A parameterised query that travels in one message with a statement before
 * or after it: Postgres runs them in order and answers them together, so a
 * `begin` or `commit` costs no round trip of its own. The query's own result
 * is what the caller gets; the companion's is dropped. If any of them fails,
 * Postgres skips the rest and the query fails with that error (the
 * transaction is then aborted, as after any failed statement).
 */
class PipelinedQuery extends Base {
  readonly #companions: Companions;
  /** Which command completion is the query's own (the companion before it comes first). */
  readonly #own: number;
  #completions = 0;

  constructor(config: { text: string; values: unknown[]; name?: string }, companions: Companions) {
    super(config.text, config.values);
    if (config.name !== undefined) this.name = config.name;
    // Extended protocol even without parameters: the simple one takes no companions.
    this.queryMode = "extended";
    this.#companions = companions;
    this.#own = companions.before === undefined ? 1 : 2;
  }

  override prepare(connection: ProtocolConnection): void {
    if (this.#companions.before !== undefined) {
      connection.parse({ text: this.#companions.before });
      connection.bind({});
      connection.execute({});
    }
    super.prepare(connection);
  }

  // pg calls this after binding the query (its name is pg's); it ends the
  // message with Sync, which this override puts after the companion.
  _getRows(connection: ProtocolConnection, rows: number | undefined): void {
    connection.execute({ portal: this.portal, ...(rows !== undefined && { rows }) });
    if (this.#companions.after !== undefined) {
      connection.parse({ text: this.#companions.after });
      connection.bind({});
      connection.execute({});
    }
    connection.sync();
  }

  override handleCommandComplete(message: unknown, connection: ProtocolConnection): void {
    this.#completions += 1;
    if (this.#completions === this.#own) super.handleCommandComplete(message, connection);
  }
}

/**
 * Sends `config` on `client`, with its companions when given; resolves with
 * the query's own result. A plain named query goes this way too, so pg does
 * not clone its config.
 */
export function queryWith(
  client: pg.PoolClient,
  config: { text: string; values: unknown[]; name?: string },
  companions: Companions = {},
): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    const query = new PipelinedQuery(config, companions);
    (
      query as unknown as { callback: (error: Error | null, result: pg.QueryResult) => void }
    ).callback = (error, result) => (error === null ? resolve(result) : reject(error));
    client.query(query as unknown as pg.QueryConfig);
  });
}
