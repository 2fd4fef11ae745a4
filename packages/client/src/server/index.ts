import { type ClientOptions, createClient, type SvcClient } from "../create-client.js";
import { type HydrationState, liveKey, queryKey } from "../hydration.js";
import type { SubscribeOptions } from "../subscribe.js";
import type { AnyApi, ApiShape, EntityName, FunctionName, FunctionResult } from "../types.js";

export { type HydrationState, serializeState } from "../hydration.js";

/** The session cookie svc sets (`svc_session`); its value is a session token. */
export const SESSION_COOKIE = "svc_session";

/** The parts of an incoming request the server client reads: its headers. */
export interface RequestLike {
  readonly headers:
    | { get(name: string): string | null }
    | Readonly<Record<string, string | readonly string[] | undefined>>;
}

/** Options of `createServerClient`. */
export interface ServerClientOptions extends Omit<ClientOptions, "token" | "storage" | "live"> {
  /**
   * The page request being rendered (a Node `IncomingMessage`, a fetch
   * `Request`, or anything with headers): the caller is its
   * `Authorization: Bearer` token, else its session cookie.
   */
  readonly request?: RequestLike;
  /** A token to call as instead (wins over `request`). */
  readonly token?: string;
  /** The session cookie's name. Default `svc_session`. */
  readonly cookieName?: string;
}

/** A client for rendering on the server: calls svc as the page's visitor and records what it fetched. */
export interface ServerClient<TApi extends ApiShape = AnyApi> extends SvcClient<TApi> {
  /**
   * Loads the rows `useQuery(entity, options)` will show (the same
   * snapshot a subscription starts with), for the render and for the
   * browser to start from.
   */
  prefetchQuery<TName extends EntityName<TApi>>(
    entity: TName,
    options?: Pick<SubscribeOptions<TApi["entities"][TName]>, "where" | "orderBy" | "limit">,
  ): Promise<readonly unknown[]>;
  /** Runs the query function `useLiveQuery(name, args)` will show, and records its value. */
  prefetchLive<TName extends FunctionName<TApi>>(
    name: TName,
    args?: TApi["functions"][TName]["args"],
  ): Promise<FunctionResult<TApi, TName>>;
  /** Everything prefetched, for `serializeState` and the browser's `createClient({ initialState })`. */
  dehydrate(): HydrationState;
}

function headerOf(request: RequestLike, name: string): string | undefined {
  const { headers } = request;
  if (typeof (headers as { get?: unknown }).get === "function") {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const value = (headers as Record<string, string | readonly string[] | undefined>)[name];
  return Array.isArray(value) ? value.join(", ") : (value as string | undefined);
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index === -1 || part.slice(0, index).trim() !== name) continue;
    try {
      return decodeURIComponent(part.slice(index + 1).trim());
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The token a page request carries: its bearer, else its session cookie. */
export function tokenOfRequest(
  request: RequestLike,
  cookieName = SESSION_COOKIE,
): string | undefined {
  const bearer = /^Bearer +(\S+) *$/i.exec(headerOf(request, "authorization") ?? "")?.[1];
  return bearer ?? cookieValue(headerOf(request, "cookie"), cookieName);
}

function orderOf(
  orderBy: SubscribeOptions<Record<string, unknown>>["orderBy"],
): string | undefined {
  if (orderBy === undefined || typeof orderBy === "string") return orderBy;
  return orderBy.direction === "desc" ? `-${orderBy.field}` : orderBy.field;
}

/**
 * A client for server-side rendering: it calls svc as the visitor of the
 * page being rendered (the request's bearer token or svc session cookie),
 * keeps no token anywhere, and records what `prefetchQuery` and
 * `prefetchLive` load. Render with it inside `SvcProvider` (the hooks show
 * the prefetched data on the server), then embed `serializeState(
 * dehydrate())` in the page; the browser's
 * `createClient({ initialState })` hydrates without a second round trip and
 * goes live.
 *
 * @example
 * const svc = createServerClient({ url: "http://127.0.0.1:4321", request: req });
 * await svc.prefetchQuery("Todo", { where: { done: false } });
 * const html = renderToString(<SvcProvider client={svc}><Todos /></SvcProvider>);
 * res.end(`<div id="root">${html}</div><script>window.__SVC__=${serializeState(svc.dehydrate())}</script>`);
 */
export function createServerClient<TApi extends ApiShape = AnyApi>(
  options: ServerClientOptions,
): ServerClient<TApi> {
  const { request, cookieName, token: explicit, ...rest } = options;
  const token =
    explicit ?? (request === undefined ? undefined : tokenOfRequest(request, cookieName));
  // A server never holds live connections for a page render.
  const client = createClient<TApi>({
    ...rest,
    ...(token !== undefined && { token }),
    live: { transport: "sse" },
  });
  return Object.assign(client, {
    async prefetchQuery(
      entity: string,
      query: Pick<SubscribeOptions<Record<string, unknown>>, "where" | "orderBy" | "limit"> = {},
    ) {
      const order = orderOf(query.orderBy);
      const page = await client.entities(entity as EntityName<TApi>).list({
        ...(query.where !== undefined && { where: query.where as never }),
        ...(order !== undefined && { order: order as never }),
        ...(query.limit !== undefined && { limit: query.limit }),
      });
      client.hydration.setRows(queryKey(entity, query), page.rows);
      return page.rows;
    },
    async prefetchLive(name: string, args: unknown = {}) {
      const value = await (
        client.fn as unknown as (name: string, args: unknown) => Promise<unknown>
      )(name, args);
      client.hydration.setValue(liveKey(name, args), value);
      return value;
    },
    dehydrate: () => client.hydration.toState(),
  }) as ServerClient<TApi>;
}
