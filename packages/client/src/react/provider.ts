import { createContext, createElement, type ReactNode, useContext } from "react";
import type { SvcClient } from "../create-client.js";
import type { AnyApi, ApiShape } from "../types.js";

const SvcContext = createContext<SvcClient<AnyApi> | null>(null);

/** Props of `SvcProvider`. */
export interface SvcProviderProps<TApi extends ApiShape = AnyApi> {
  /** The client every hook below uses (`createClient(...)`, made once, outside render). */
  readonly client: SvcClient<TApi>;
  readonly children?: ReactNode;
}

/**
 * Makes `client` available to the hooks (`useQuery`, `useLiveQuery`,
 * `useMutation`, `useAuth`) of every component below it.
 *
 * @example
 * const client = createClient({ url: "http://localhost:4321" });
 * createRoot(element).render(<SvcProvider client={client}><App /></SvcProvider>);
 */
export function SvcProvider<TApi extends ApiShape = AnyApi>(
  props: SvcProviderProps<TApi>,
): ReactNode {
  return createElement(
    SvcContext.Provider,
    { value: props.client as unknown as SvcClient<AnyApi> },
    props.children,
  );
}

/** The client of the nearest `SvcProvider`; throws when there is none. */
export function useSvcClient(): SvcClient<AnyApi> {
  const client = useContext(SvcContext);
  if (client === null) throw new Error("svc hooks must be used inside <SvcProvider client={...}>.");
  return client;
}
