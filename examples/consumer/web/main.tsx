import { createClient } from "@svc/client";
import { SvcProvider } from "@svc/client/react";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app.js";
import type { Api } from "./svc-api.js";

// The hooks check names, arguments and rows against this app's API
// (web/svc-api.ts, written by `pnpm codegen`).
declare module "@svc/client" {
  interface Register {
    api: Api;
  }
}

// The page is served by the svc server itself, so its origin is the API's.
// The session token survives reloads in localStorage.
const client = createClient<Api>({
  url: location.origin,
  storage: {
    get: (key) => localStorage.getItem(key),
    set: (key, value) => localStorage.setItem(key, value),
    remove: (key) => localStorage.removeItem(key),
  },
});

const root = document.getElementById("root");
if (root === null) throw new Error("index.html has no #root element.");
createRoot(root).render(
  <StrictMode>
    <SvcProvider client={client}>
      <App />
    </SvcProvider>
  </StrictMode>,
);
