import type { TokenStorage } from "./storage.js";

/** Why the client's auth state changed. */
export type AuthChangeReason =
  /** A sign-in (or `setToken`) stored a new token. */
  | "sign-in"
  /** `signOut`, `signOutEverywhere`, `deleteAccount` or `setToken(null)`. */
  | "sign-out"
  /** The server refused the stored session token (401 `INVALID_TOKEN`); it was cleared. */
  | "token-invalid"
  /** `selectOrg` changed the active organization; the token stays. */
  | "org-change";

/** What an `onAuthChange` listener receives. */
export interface AuthChange {
  readonly reason: AuthChangeReason;
  /** The token now stored, or null when signed out. */
  readonly token: string | null;
  /** The signed-in user when the client learned it from a sign-in answer; null otherwise. */
  readonly userId: string | null;
}

/** Called on every auth change; the future live layer resets its subscriptions here. */
export type AuthChangeListener = (change: AuthChange) => void;

/**
 * The client's one token, mirrored in memory and written through to the
 * storage; writes are applied in order.
 */
export class TokenState {
  readonly #storage: TokenStorage;
  readonly #key: string;
  readonly #listeners = new Set<AuthChangeListener>();
  readonly #ready: Promise<void>;
  #token: string | null = null;
  #userId: string | null = null;
  #writes: Promise<void> = Promise.resolve();

  constructor(storage: TokenStorage, key: string, initial: string | undefined) {
    this.#storage = storage;
    this.#key = key;
    this.#ready =
      initial === undefined
        ? Promise.resolve(storage.get(key)).then((stored) => {
            this.#token = stored ?? null;
          })
        : Promise.resolve(storage.set(key, initial)).then(() => {
            this.#token = initial;
          });
    // A storage that fails to load rejects every later call; no unhandled rejection.
    this.#ready.catch(() => undefined);
    this.#writes = this.#ready;
  }

  /** The stored token, once the storage has been read. */
  async get(): Promise<string | null> {
    await this.#writes;
    return this.#token;
  }

  /** Stores `token` (or clears it with null) and tells the listeners. */
  async set(token: string | null, userId: string | null, reason: AuthChangeReason): Promise<void> {
    const write = this.#writes.then(async () => {
      if (token === null) await this.#storage.remove(this.#key);
      else await this.#storage.set(this.#key, token);
      this.#token = token;
      this.#userId = token === null ? null : userId;
    });
    this.#writes = write.catch(() => undefined);
    await write;
    this.emit(reason);
  }

  /** Clears the token only if it is still `sent` (a later sign-in is kept). */
  async clearIf(sent: string, reason: AuthChangeReason): Promise<void> {
    if ((await this.get()) === sent) await this.set(null, null, reason);
  }

  /** Tells the listeners without changing the token (an organization switch). */
  emit(reason: AuthChangeReason): void {
    const change: AuthChange = { reason, token: this.#token, userId: this.#userId };
    for (const listener of [...this.#listeners]) {
      try {
        listener(change);
      } catch (error) {
        console.error("svc client: an onAuthChange listener threw:", error);
      }
    }
  }

  /** Adds a listener; the returned function removes it. */
  subscribe(listener: AuthChangeListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }
}
