/** How long an outbound transport waits for its provider before giving up: 10 seconds. */
export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;

/** The options every outbound transport shares. */
export interface DeliveryOptions {
  /** The fetch to use; default the global one. Tests pass their own. */
  readonly fetch?: typeof fetch | undefined;
  /** Milliseconds before the send is abandoned; default 10 000. */
  readonly timeoutMs?: number | undefined;
}

/** A JSON POST to a provider, as every outbound transport makes it. */
export interface JSONPost {
  /** Provider name, used only in the failure description. */
  readonly provider: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly fetch: typeof fetch | undefined;
  readonly timeoutMs: number;
}

/** The most of a provider's error answer kept for the log. */
const MAX_RESPONSE_TEXT = 500;

/**
 * POSTs `body` as JSON and resolves when the provider answers 2xx. Any other
 * outcome rejects with an `Error` meant to become the `cause` of the caller's
 * `AuthError`: its message names the provider and the status only, while the
 * provider's (truncated) answer sits in its own `cause` for the log, so no
 * message ever carries provider text. Redirects are refused: following one
 * would re-send the API key and the message to an address nobody configured.
 */
export async function postJSON(request: JSONPost): Promise<void> {
  const fetchImpl = request.fetch ?? globalThis.fetch;
  const response = await fetchImpl(request.url, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...request.headers },
    body: JSON.stringify(request.body),
    redirect: "error",
    signal: AbortSignal.timeout(request.timeoutMs),
  });
  if (response.ok) {
    // Drain the body so the connection can be reused.
    await response.arrayBuffer().catch(() => undefined);
    return;
  }
  const text = await response.text().catch(() => "");
  throw new Error(`${request.provider} answered HTTP ${response.status}`, {
    cause: { status: response.status, responseText: text.slice(0, MAX_RESPONSE_TEXT) },
  });
}

/**
 * `path` appended to `base`, keeping any path prefix the base has (a proxy
 * at `https://mail.internal/resend` gets `/resend/emails`), which
 * `new URL(path, base)` would drop.
 */
export function joinURL(base: string | URL, path: string): URL {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
  return url;
}

/** `Authorization: Bearer <apiKey>` when there is a key; no header otherwise. */
export function bearerHeaders(apiKey: string | undefined): Record<string, string> {
  return apiKey === undefined ? {} : { Authorization: `Bearer ${apiKey}` };
}

/**
 * What every outbound transport does with a message: `postJSON` to
 * `target` with `body(message)`, the fetch and timeout of `options` (default
 * `DEFAULT_DELIVERY_TIMEOUT_MS`), any failure thrown as `failed(cause)` (the
 * transport's own `AuthError`).
 */
export function jsonSender<TMessage>(
  target: Pick<JSONPost, "provider" | "url" | "headers">,
  options: DeliveryOptions,
  body: (message: TMessage) => unknown,
  failed: (cause: unknown) => Error,
): (message: TMessage) => Promise<void> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
  return async (message) => {
    try {
      await postJSON({ ...target, body: body(message), fetch: options.fetch, timeoutMs });
    } catch (cause) {
      throw failed(cause);
    }
  };
}
