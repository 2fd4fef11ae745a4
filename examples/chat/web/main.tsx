import { createClient } from "@svc/client";
import { SvcProvider } from "@svc/client/react";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app.js";
import type { Api } from "./svc-api.js";

// The hooks are checked against this app's functions and entities
// (web/svc-api.ts, written by `pnpm codegen`).
declare module "@svc/client" {
  interface Register {
    api: Api;
  }
}

const TOKEN_KEY = "svc_token";

// The session lives in localStorage, so a reload or a second tab stays signed in.
const client = createClient<Api>({
  url: location.origin,
  storageKey: TOKEN_KEY,
  storage: {
    get: (key) => localStorage.getItem(key),
    set: (key, value) => localStorage.setItem(key, value),
    remove: (key) => localStorage.removeItem(key),
  },
});

// Signing in or out in another tab does the same here.
window.addEventListener("storage", (event) => {
  if (event.key !== TOKEN_KEY) return;
  void client.token().then((current) => {
    if (current !== event.newValue) return client.setToken(event.newValue);
  });
});

const root = document.getElementById("root");
if (root === null) throw new Error("index.html needs an element with id root.");
createRoot(root).render(
  <StrictMode>
    <SvcProvider client={client}>
      <App />
    </SvcProvider>
  </StrictMode>,
);
