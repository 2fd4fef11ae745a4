import { errorFromResponse, INVALID_RESPONSE, NETWORK_ERROR, SvcError } from "./errors.js";
import type { TokenState } from "./token-state.js";

/** The `fetch` the client calls; the platform's by default. */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** Per-call options every request accepts. */
export interface CallOptions {
  /** Aborts the request; an aborted call rejects with `SvcError` code `ABORTED`. */
  readonly signal?: AbortSignal;
}

/** One request as the helpers describe it. */
export interface TransportRequest extends CallOptions {
  readonly method: "GET" | "POST" | "PATCH" | "DELETE";
  readonly path: string;
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly body?: unknown;
  /** Sent as the `Idempotency-Key` header: the server applies the write once per key. */
  readonly idempotencyKey?: string;
}

/** A 2xx answer: the parsed JSON body (undefined when empty) and the headers. */
export interface TransportResponse<T> {
  readonly data: T;
  readonly headers: Headers;
  readonly status: number;
}

/** Sends requests to one server with the stored bearer token. */
export interface Transport {
  readonly baseURL: string;
  /** An absolute URL on the server for `path` and `query` (undefined values are left out). */
  url(path: string, query?: Readonly<Record<string, string | undefined>>): string;
  request<T>(request: TransportRequest): Promise<TransportResponse<T>>;
}

function parseJSON(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text === "") return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

/** The transport behind a client: JSON bodies, bearer auth, `SvcError` for every failure. */
export function createTransport(
  baseURL: string,
  tokens: TokenState,
  options: { fetch: FetchFunction; credentials?: "omit" | "same-origin" | "include" },
): Transport {
  const fetchImpl = options.fetch;
  const base = baseURL.replace(/\/+$/, "");
  const url = (path: string, query?: Readonly<Record<string, string | undefined>>): string => {
    const target = new URL(`${base}${path}`);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) target.searchParams.set(key, value);
    }
    return target.toString();
  };
  return {
    baseURL: base,
    url,
    async request<T>(request: TransportRequest): Promise<TransportResponse<T>> {
      const token = await tokens.get();
      const headers: Record<string, string> = { accept: "application/json" };
      if (token !== null) headers.authorization = `Bearer ${token}`;
      if (request.body !== undefined) headers["content-type"] = "application/json";
      if (request.idempotencyKey !== undefined) headers["idempotency-key"] = request.idempotencyKey;
      let response: Response;
      let text: string;
      try {
        response = await fetchImpl(url(request.path, request.query), {
          method: request.method,
          headers,
          ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
          ...(request.signal !== undefined && { signal: request.signal }),
          ...(options.credentials !== undefined && { credentials: options.credentials }),
        });
        text = await response.text();
      } catch (error) {
        if (isAbort(error)) {
          throw new SvcError("ABORTED", "The request was aborted.", { status: 0, cause: error });
        }
        throw new SvcError(NETWORK_ERROR, "The server could not be reached.", {
          status: 0,
          cause: error,
        });
      }
      const parsed = parseJSON(text);
      if (!response.ok) {
        const error = errorFromResponse(response.status, parsed.ok ? parsed.value : undefined);
        if (error.status === 401 && error.code === "INVALID_TOKEN" && token !== null) {
          await tokens.clearIf(token, "token-invalid");
        }
        throw error;
      }
      if (!parsed.ok) {
        throw new SvcError(INVALID_RESPONSE, "The server's answer is not JSON.", {
          status: response.status,
        });
      }
      return { data: parsed.value as T, headers: response.headers, status: response.status };
    },
  };
}
