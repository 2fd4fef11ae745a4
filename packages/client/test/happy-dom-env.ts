import { builtinEnvironments, type Environment } from "vitest/runtime";

// Node's own networking: happy-dom swaps in browser emulations (a page
// origin with CORS for fetch, its own WebSocket and URL), which would also
// reach the in-process server the tests start.
const NODE_GLOBALS = [
  "WebSocket",
  "fetch",
  "Headers",
  "Request",
  "Response",
  "FormData",
  "URL",
  "URLSearchParams",
  "AbortController",
  "AbortSignal",
  "MessagePort",
  // Node's WebSocket builds its events from these globals at dispatch time.
  "Event",
  "EventTarget",
  "MessageEvent",
  "CloseEvent",
  "ErrorEvent",
] as const;

/**
 * happy-dom's DOM for React Testing Library, with Node's real `WebSocket`,
 * `fetch` and `URL` kept in place. Use it with
 * `// @vitest-environment happy-dom-node` (an alias in vitest.config.ts).
 */
const environment: Environment = {
  name: "happy-dom-node",
  // Modules load as on Node (file: import.meta.url): the in-process server needs it.
  viteEnvironment: "ssr",
  async setup(global, options) {
    const kept = NODE_GLOBALS.map(
      (key) => [key, Object.getOwnPropertyDescriptor(global, key)] as const,
    );
    const happyDOM = await builtinEnvironments["happy-dom"].setup(global, options);
    for (const [key, descriptor] of kept) {
      if (descriptor !== undefined) Object.defineProperty(global, key, descriptor);
    }
    return { teardown: (target) => happyDOM.teardown(target) };
  },
};

export default environment;
