import { useCallback, useSyncExternalStore } from "react";
import type { SvcClient } from "../create-client.js";
import type { AnyApi } from "../types.js";
import { useSvcClient } from "./provider.js";

/** What `useAuth` answers. */
export interface AuthState {
  /** True until the stored token (and, after a reload, the user behind it) is known. */
  readonly loading: boolean;
  /** Whether a token is stored. */
  readonly signedIn: boolean;
  /** The signed-in user, or null (signed out, or not known yet). */
  readonly userId: string | null;
}

/** `AuthState` plus the sign-out action. */
export interface UseAuthResult extends AuthState {
  /** `client.auth.signOut()`: the hooks re-render signed out. */
  signOut(): Promise<void>;
}

interface AuthStore {
  getSnapshot(): AuthState;
  subscribe(notify: () => void): () => void;
}

const stores = new WeakMap<SvcClient<AnyApi>, AuthStore>();

/** One store per client, shared by every `useAuth`, listening while any is mounted. */
function authStore(client: SvcClient<AnyApi>): AuthStore {
  const existing = stores.get(client);
  if (existing !== undefined) return existing;
  let state: AuthState = { loading: true, signedIn: false, userId: null };
  const listeners = new Set<() => void>();
  let stop: (() => void) | null = null;
  let run = 0;

  const set = (next: AuthState): void => {
    state = next;
    for (const listener of [...listeners]) listener();
  };
  // Resolves who is signed in; a later change wins over an earlier lookup.
  const refresh = async (known?: {
    token: string | null;
    userId: string | null;
  }): Promise<void> => {
    run += 1;
    const current = run;
    const token = known === undefined ? await client.token().catch(() => null) : known.token;
    if (current !== run) return;
    if (token === null) return set({ loading: false, signedIn: false, userId: null });
    if (known?.userId != null) return set({ loading: false, signedIn: true, userId: known.userId });
    set({ loading: true, signedIn: true, userId: null });
    const userId = await client.auth.me().then(
      (me) => me.user_id,
      () => null,
    );
    if (current === run) set({ loading: false, signedIn: true, userId });
  };

  const store: AuthStore = {
    getSnapshot: () => state,
    subscribe(notify) {
      listeners.add(notify);
      if (stop === null) {
        stop = client.onAuthChange((change) => void refresh(change));
        void refresh();
      }
      return () => {
        listeners.delete(notify);
        if (listeners.size === 0 && stop !== null) {
          stop();
          stop = null;
        }
      };
    },
  };
  stores.set(client, store);
  return store;
}

/**
 * Who is signed in on the provider's client, re-rendering on sign-in,
 * sign-out, a refused token and an organization switch. After a reload
 * with a stored token the user is looked up once (`auth.me()`).
 *
 * @example
 * const { signedIn, userId, signOut } = useAuth();
 * return signedIn ? <button onClick={() => void signOut()}>Sign out {userId}</button> : <SignIn />;
 */
export function useAuth(): UseAuthResult {
  const client = useSvcClient();
  const store = authStore(client);
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
  const signOut = useCallback(() => client.auth.signOut(), [client]);
  return { ...state, signOut };
}
