import { createEdgeApp, type EdgeApp, type EdgeAppDefinition } from "./edge-app.js";
import type { EdgeEnv } from "./edge-config.js";
import { errorResponse } from "./http/responses.js";

/** A Worker's module export: `export default createWorker(definition)`. */
export interface EdgeWorker {
  fetch(request: Request, env: EdgeEnv): Promise<Response>;
}

/**
 * The Worker for one app: builds the app on the isolate's first request
 * (bindings arrive with requests) and reuses it while the bindings are the
 * same. A binding that is wrong answers 500 `INTERNAL_ERROR` and logs the
 * binding's name.
 *
 * @example
 * import { createWorker } from "@svc/edge/worker";
 * export default createWorker({ manifest, functions: new Map([["listTodos", listTodos]]) });
 */
export function createWorker(definition: EdgeAppDefinition): EdgeWorker {
  // One app per isolate: the bindings are fixed for a deployment.
  let app: { env: EdgeEnv; app: EdgeApp } | undefined;
  return {
    async fetch(request, env) {
      try {
        app ??= { env, app: createEdgeApp(definition, env) };
      } catch (error) {
        return errorResponse(error, (cause) => console.error("svc edge: cannot start:", cause));
      }
      return app.app.fetch(request);
    },
  };
}

export type { EdgeAppDefinition } from "./edge-app.js";
export type { EdgeEnv } from "./edge-config.js";
