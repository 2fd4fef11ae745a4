import { type ApiKeysClient, createApiKeysClient } from "./api-keys.js";
import { type AuthClient, createAuthClient } from "./auth.js";
import { platformTimers } from "./backoff.js";
import { type BillingClient, createBillingClient } from "./billing.js";
import { createEntityCollection, type EntityCollection } from "./entities.js";
import { createHydrationCache, type HydrationCache, type HydrationState } from "./hydration.js";
import { createLiveLayer, type LiveOptions } from "./live.js";
import type { WebSocketConstructor } from "./live-socket.js";
import {
  OptimisticStore,
  type OptimisticUpdate,
  recordOptimistic,
  withOptimistic,
} from "./optimistic.js";
import { openRoom, type Room, type RoomOptions } from "./rooms.js";
import { createMemoryStorage, type TokenStorage } from "./storage.js";
import {
  type LiveQuery,
  type LiveQueryListener,
  type RowsListener,
  type SubscribeOptions,
  type Subscription,
  subscribeEntity,
  subscribeQuery,
} from "./subscribe.js";
import { createSyncClient, type SyncClient } from "./sync.js";
import { type AuthChangeListener, TokenState } from "./token-state.js";
import { createTransport, type FetchFunction } from "./transport.js";
import type {
  AnyApi,
  ApiShape,
  EntityName,
  EntityRow,
  FunctionArgs,
  FunctionName,
  FunctionResult,
} from "./types.js";
import { createWriteQueue, type QueueOptions, type WriteQueue } from "./write-queue.js";
import { createWriteSender, type WriteCallOptions, type WriteOptions } from "./write-sender.js";

/** Options of `createClient`. */
export interface ClientOptions {
  /** The application server's address, e.g. `http://localhost:4321`. */
  readonly url: string;
  /**
   * A token to start with (a `svc_` session, a `pk.` API key or a JWT); it
   * is written to `storage`. Default: whatever `storage` holds.
   */
  readonly token?: string;
  /** Where the token is kept. Default in memory (lost on reload). */
  readonly storage?: TokenStorage;
  /** The key under which the token is stored. Default `"svc_token"`. */
  readonly storageKey?: string;
  /** The `fetch` to call. Default the platform's `globalThis.fetch`. */
  readonly fetch?: FetchFunction;
  /**
   * fetch's `credentials`: `"include"` sends the session cookie to a server
   * on another origin (cookie-mode OAuth); the bearer token needs none.
   * Default the platform's (`"same-origin"`).
   */
  readonly credentials?: "omit" | "same-origin" | "include";
  /** The live transports (`subscribe`, `live`): which to use, and test seams. */
  readonly live?: LiveOptions;
  /**
   * Data a server rendered the page with (`serializeState` of
   * `createServerClient(...).dehydrate()`): `useQuery` and `useLiveQuery`
   * render it at once instead of loading, then go live.
   */
  readonly initialState?: HydrationState;
  /**
   * How writes are sent: an `Idempotency-Key` on every `fn` call and
   * entity write (default on), retried with the same key after a network
   * failure (`retries`, default 2), and the timers and random source of
   * those retries and of the write queue.
   */
  readonly writes?: WriteOptions;
  /**
   * The offline write queue (`client.queue`): where it keeps its writes
   * (default in memory; give `storage` to keep them across reloads).
   */
  readonly queue?: QueueOptions;
}

/** Per-call options of `fn`. */
export interface FnCallOptions<TApi extends ApiShape = AnyApi> extends WriteCallOptions {
  /**
   * What the call is expected to do to the rows on screen, shown at once
   * in live subscriptions (and `useQuery`); rolled back if the call fails,
   * replaced by the server's rows as they arrive if it succeeds.
   */
  readonly optimistic?: OptimisticUpdate<TApi>;
}

/** A typed client for one svc application server. */
export interface SvcClient<TApi extends ApiShape = AnyApi> {
  /** The server's address, without a trailing slash. */
  readonly url: string;
  /** Prefetched data (server rendering): what the hooks render before their first live answer. */
  readonly hydration: HydrationCache;
  /** The stored token, or null when signed out. */
  token(): Promise<string | null>;
  /** Stores `token` (null clears it) as if a sign-in answered it; fires `onAuthChange`. */
  setToken(token: string | null): Promise<void>;
  /**
   * Calls `listener` on sign-in, sign-out, a refused session token and an
   * organization switch; returns the unsubscribe function.
   */
  onAuthChange(listener: AuthChangeListener): () => void;
  readonly auth: AuthClient;
  readonly apiKeys: ApiKeysClient;
  readonly billing: BillingClient;
  /** Catching up on changes (`GET /api/sync/pull`). */
  readonly sync: SyncClient;
  /**
   * `POST /api/fn/<name>` with `args` as the body; resolves to the
   * function's JSON result. Sent with an `Idempotency-Key` (a mutation or
   * action runs once per key; a query ignores it) and sent again with the
   * same key when no answer came (see `WriteOptions`).
   *
   * @example
   * const id = generateId();
   * await client.fn("createTodo", { id, title: "Milk" }, {
   *   optimistic: (tx) => tx.insert("Todo", { id, title: "Milk", done: false }),
   * });
   */
  fn<TName extends FunctionName<TApi>>(
    name: TName,
    ...args: [...FunctionArgs<TApi, TName>, options?: FnCallOptions<TApi>]
  ): Promise<FunctionResult<TApi, TName>>;
  /**
   * The offline write queue: writes sent in order, each with its own
   * `Idempotency-Key`, held and sent again while the server cannot be
   * reached, kept in `queue.storage` across reloads.
   *
   * @example
   * const client = createClient({ url, queue: { storage: localStorageAdapter } });
   * void client.queue.insert("Todo", { title: "Milk", done: false }); // shown at once, sent when online
   * client.queue.subscribe((event) => {
   *   if (event.type === "dropped") console.warn(event.error.code);
   * });
   */
  readonly queue: WriteQueue<TApi>;
  /** REST access to one entity: `client.entities("Todo").list({ where: { done: false } })`. */
  entities<TName extends EntityName<TApi>>(name: TName): EntityCollection<TApi["entities"][TName]>;
  /**
   * Live rows of one entity: `listener` gets the rows after the snapshot
   * and after every change the caller may see. One WebSocket per client
   * carries every subscription (opened with the first, closed with the
   * last; SSE when WebSocket is unavailable); a dropped connection resumes
   * from the last cursor, and a token change starts over from a new
   * snapshot.
   *
   * @example
   * const todos = client.subscribe("Todo", { where: { done: false } }, (rows) => render(rows));
   * await todos.ready;
   * todos.unsubscribe();
   */
  subscribe<TName extends EntityName<TApi>>(
    entity: TName,
    options: SubscribeOptions<TApi["entities"][TName]>,
    listener: RowsListener<EntityRow<TApi["entities"][TName]>>,
  ): Subscription<EntityRow<TApi["entities"][TName]>>;
  /**
   * A live query function: `listener` gets its value now and whenever a
   * change makes it differ. WebSocket only.
   *
   * @example
   * const open = client.live("listTodos", {}, (page) => console.log(page));
   * open.unsubscribe();
   */
  live<TName extends FunctionName<TApi>>(
    name: TName,
    args: TApi["functions"][TName]["args"],
    listener: LiveQueryListener<FunctionResult<TApi, TName>>,
  ): LiveQuery<FunctionResult<TApi, TName>>;
  /**
   * Joins a realtime room (`/shard/<kind>[/<key>]`, a manifest `rooms`
   * kind): who is here with their presence, messages to everyone or one
   * member, rejoin after a drop, and a new join as the new caller on every
   * identity change. One WebSocket per room; `close()` leaves. Uses
   * `live.WebSocket`, `live.timers` and `live.random` when given.
   *
   * @example
   * const room = client.room<{ name: string }>("chat", "general", { presence: { name: "Ada" } });
   * room.subscribe(({ members }) => render(members.map((member) => member.presence?.name)));
   * room.onMessage(({ userId, data }) => console.log(userId, data));
   * room.send({ text: "hi" });
   * room.close();
   */
  room<TPresence = unknown, TMessage = unknown>(
    kind: string,
    key?: string | null,
    options?: RoomOptions<TPresence, TMessage>,
  ): Room<TPresence, TMessage>;
}

const defaultFetch: FetchFunction = (input, init) => globalThis.fetch(input, init);

/**
 * Creates a client for one svc server. Runs in browsers and Node 22+ with
 * nothing but `fetch`; pass an `Api` type (what `svc codegen` writes) to
 * check function arguments, results and entity fields at compile time.
 *
 * @example
 * const client = createClient({ url: "http://localhost:4321" });
 * const { dev_code } = await client.auth.sendMagicCode("ada@example.com");
 * await client.auth.verifyMagicCode("ada@example.com", dev_code ?? "");
 * const { id } = (await client.fn("createTodo", { title: "Milk" })) as { id: string };
 * const page = await client.entities("Todo").list({ order: "-createdAt", limit: 20 });
 */
export function createClient<TApi extends ApiShape = AnyApi>(
  options: ClientOptions,
): SvcClient<TApi> {
  const tokens = new TokenState(
    options.storage ?? createMemoryStorage(),
    options.storageKey ?? "svc_token",
    options.token,
  );
  const fetchImpl = options.fetch ?? defaultFetch;
  const transport = createTransport(options.url, tokens, {
    fetch: fetchImpl,
    ...(options.credentials !== undefined && { credentials: options.credentials }),
  });
  const writeOptions = options.writes ?? {};
  const writes = createWriteSender(transport, writeOptions);
  const optimistic = new OptimisticStore();
  const queue = createWriteQueue<TApi>({
    transport,
    tokens,
    optimistic,
    options: options.queue ?? {},
    ...(writeOptions.timers !== undefined && { timers: writeOptions.timers }),
    ...(writeOptions.random !== undefined && { random: writeOptions.random }),
    ...(writeOptions.generateKey !== undefined && { generateKey: writeOptions.generateKey }),
  });
  const liveOptions = options.live ?? {};
  const live = createLiveLayer({
    transport,
    tokens,
    fetch: fetchImpl,
    ...(options.credentials !== undefined && { credentials: options.credentials }),
    options: {
      ...liveOptions,
      onStatus(status) {
        // The server is reachable again: a waiting queue need not wait out its backoff.
        if (status.state === "open" && queue.state.status === "waiting") void queue.flush();
        liveOptions.onStatus?.(status);
      },
    },
  });
  const hydration = createHydrationCache(options.initialState);
  // Prefetched data is one caller's view: never show it to the next.
  tokens.subscribe(() => hydration.clear());
  // Nor are the previous caller's optimistic changes (queued writes are dropped too).
  tokens.subscribe((change) => {
    if (change.reason === "sign-out") optimistic.clear();
  });
  return {
    url: transport.baseURL,
    hydration,
    token: () => tokens.get(),
    setToken: (token) => tokens.set(token, null, token === null ? "sign-out" : "sign-in"),
    onAuthChange: (listener) => tokens.subscribe(listener),
    auth: createAuthClient(transport, tokens),
    apiKeys: createApiKeysClient(transport),
    billing: createBillingClient(transport),
    sync: createSyncClient(transport),
    async fn(name, ...rest) {
      const [args, callOptions] = rest as unknown as [unknown, FnCallOptions<TApi> | undefined];
      const key = writes.keyFor(callOptions?.idempotencyKey);
      const send = async () =>
        (
          await writes.send<FunctionResult<TApi, typeof name>>(
            {
              method: "POST",
              path: `/api/fn/${encodeURIComponent(name)}`,
              body: args ?? {},
              ...(callOptions?.signal !== undefined && { signal: callOptions.signal }),
            },
            key,
          )
        ).data;
      const update = callOptions?.optimistic;
      return update === undefined
        ? send()
        : withOptimistic(optimistic, recordOptimistic(update), send);
    },
    queue,
    entities: (name) => createEntityCollection({ transport, writes, optimistic }, name),
    subscribe: (entity, subscribeOptions, listener) =>
      subscribeEntity(
        live,
        optimistic,
        entity,
        subscribeOptions as SubscribeOptions<Record<string, unknown>>,
        listener,
      ),
    live: (name, args, listener) => subscribeQuery(live, name, args, listener),
    room: (kind, key, roomOptions) =>
      openRoom(
        {
          baseURL: transport.baseURL,
          tokens,
          WebSocket:
            options.live?.WebSocket ??
            ((globalThis as { WebSocket?: unknown }).WebSocket as WebSocketConstructor | undefined),
          timers: options.live?.timers ?? platformTimers,
          random: options.live?.random ?? Math.random,
        },
        kind,
        key ?? null,
        roomOptions,
      ),
  };
}
