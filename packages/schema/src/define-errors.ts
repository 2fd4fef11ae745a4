/**
 * One entry of an error table: the HTTP `status` of a wire error (sent to
 * clients), or `undefined` for a local error (bad configuration, a
 * programmer mistake) that is never shown to a client; and the default
 * `message`, one client-safe sentence.
 */
export interface ErrorDefinition {
  readonly status: number | undefined;
  readonly message: string;
}

/** A package's codes, UPPER_SNAKE, each with its status and default message. */
export type ErrorTable = Readonly<Record<string, ErrorDefinition>>;

/** What a throw site may add to a table's entry. */
export interface DefinedErrorOptions {
  /** Replaces the table's message with a more precise one; it must stay client-safe. */
  readonly message?: string;
  /** Replaces the table's status where a specification leaves it to the endpoint. */
  readonly status?: number;
  /** Extra body fields sent beside `error`, e.g. `{ retry_after_secs: 42 }`. */
  readonly details?: Readonly<Record<string, unknown>>;
  /** Response headers, e.g. `{ "Retry-After": "42" }`. */
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
  /** The underlying failure, for the server's log only; never sent. */
  readonly cause?: unknown;
}

/** The status type of a table: `number` when every entry is a wire error. */
export type TableStatus<TTable extends ErrorTable> =
  undefined extends TTable[keyof TTable]["status"] ? number | undefined : number;

/**
 * An instance of a class made by `defineErrors`. When its status is a number
 * it is a `WireError` (`expose: true`); a local error has no status and
 * `expose: false`.
 */
export interface DefinedError<TCode extends string, TStatus extends number | undefined = number>
  extends Error {
  readonly code: TCode;
  readonly status: TStatus;
  readonly expose: TStatus extends number ? true : boolean;
  readonly details: Readonly<Record<string, unknown>> | undefined;
  readonly headers: Readonly<Record<string, string | readonly string[]>> | undefined;
}

/** The class `defineErrors` returns; extend it to keep a package's own class name. */
export interface DefinedErrorClass<TTable extends ErrorTable> {
  new (
    code: keyof TTable & string,
    options?: DefinedErrorOptions,
  ): DefinedError<keyof TTable & string, TableStatus<TTable>>;
  readonly prototype: DefinedError<keyof TTable & string, TableStatus<TTable>>;
  /** The table the class was made from. */
  readonly codes: TTable;
  /**
   * An instance whose `code` has the literal type of the given code (an
   * instance of the subclass it is called on, e.g. `AuthError.create(...)`).
   */
  create<TCode extends keyof TTable & string>(
    code: TCode,
    options?: DefinedErrorOptions,
  ): DefinedError<TCode, TableStatus<TTable>>;
}

/**
 * Makes the error class of a package from its table of codes: each instance
 * carries `code`, `status`, `message`, `cause` and, for the client,
 * optional `details` and `headers`; an entry with a status is a wire error
 * (`toErrorResponse` sends it as it is), one without is local. Extend the
 * result to give the package its own class (`instanceof AuthError` keeps
 * working); compose the shared codes with `commonErrors`/`commonError`.
 *
 * @example
 * const jobsErrorCodes = {
 *   ...commonErrors("ADMIN_REQUIRED"),
 *   JOB_NOT_FOUND: { status: 404, message: "No job with this id exists." },
 * } as const satisfies ErrorTable;
 * class JobsError extends defineErrors("JobsError", jobsErrorCodes) {}
 * throw new JobsError("JOB_NOT_FOUND");
 */
export function defineErrors<const TTable extends ErrorTable>(
  name: string,
  table: TTable,
): DefinedErrorClass<TTable> {
  class DefinedTableError extends Error {
    static readonly codes = table;

    static create(code: string, options?: DefinedErrorOptions): DefinedTableError {
      return new this(code, options);
    }

    readonly code: string;
    readonly status: number | undefined;
    readonly expose: boolean;
    readonly details: Readonly<Record<string, unknown>> | undefined;
    readonly headers: Readonly<Record<string, string | readonly string[]>> | undefined;

    constructor(code: string, options: DefinedErrorOptions = {}) {
      // Own keys only: `toString` is no error code.
      const definition = Object.hasOwn(table, code) ? table[code] : undefined;
      if (definition === undefined) throw new TypeError(`${name}: unknown error code ${code}`);
      super(options.message ?? definition.message, { cause: options.cause });
      this.name = name;
      this.code = code;
      this.status = options.status ?? definition.status;
      this.expose = this.status !== undefined;
      this.details = options.details;
      this.headers = options.headers;
    }
  }
  Object.defineProperty(DefinedTableError, "name", { value: name });
  return DefinedTableError as unknown as DefinedErrorClass<TTable>;
}
