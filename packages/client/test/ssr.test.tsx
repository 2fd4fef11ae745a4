// @vitest-environment happy-dom-node
import { act, cleanup, screen, waitFor } from "@testing-library/react";
import { StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";
import { renderToString } from "react-dom/server";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, type HydrationState, type SvcClient, serializeState } from "../src/index.js";
import { SvcProvider, useLiveQuery, useQuery } from "../src/react/index.js";
import { createServerClient, tokenOfRequest } from "../src/server/index.js";
import { listItems } from "./rendered.js";
import { emailSequence } from "./server.js";
import { serverForTests } from "./server-for-tests.js";

// Server-side rendering against the real server: a page rendered with the
// visitor's cookie shows the data in its HTML, the state embedded in it is
// safe in a <script>, and the browser hydrates without a mismatch or a
// loading state, then goes live.

type Todo = { id: string; title: string };
interface ElementLike {
  innerHTML: string;
}
interface DocumentLike {
  createElement(tag: string): ElementLike;
  readonly body: { appendChild(child: ElementLike): void };
}

const server = serverForTests();
afterEach(() => cleanup());
const nextEmail = emailSequence("ssr");

async function signedIn(): Promise<{ client: SvcClient; token: string }> {
  const client = createClient({
    url: server().url,
    live: { WebSocket: globalThis.WebSocket as never },
  });
  const email = nextEmail();
  const sent = await client.auth.sendMagicCode(email);
  const result = await client.auth.verifyMagicCode(email, sent.dev_code ?? "");
  if (!("token" in result)) throw new Error("unexpected second factor");
  return { client, token: result.token };
}

function Page() {
  const todos = useQuery<Todo>("Todo", { orderBy: "title" });
  const count = useLiveQuery<{ rows: Todo[] }>("listTodos", { limit: 50 });
  return (
    <main>
      {todos.loading ? (
        <p>loading todos</p>
      ) : (
        <ul>
          {todos.rows.map((todo) => (
            <li key={todo.id}>{todo.title}</li>
          ))}
        </ul>
      )}
      <p>{count.loading ? "loading count" : `count ${count.value?.rows.length}`}</p>
    </main>
  );
}

describe("server-side rendering", () => {
  it("renders with the visitor's data, embeds safe state, hydrates and goes live", async () => {
    const { client, token } = await signedIn();
    await client.fn("createTodo", { title: "b </script><script>alert(1)</script>" });
    await client.fn("createTodo", { title: "a \u2028 line" });

    // On the server: the page request carries the session cookie.
    const svc = createServerClient({
      url: server().url,
      request: { headers: { cookie: `theme=dark; svc_session=${encodeURIComponent(token)}` } },
    });
    await svc.prefetchQuery("Todo", { orderBy: "title" });
    await svc.prefetchLive("listTodos", { limit: 50 });
    const html = renderToString(
      <SvcProvider client={svc}>
        <Page />
      </SvcProvider>,
    );
    expect(html).toContain("count 2");
    expect(html).not.toContain("loading");
    expect(html).toContain("a \u2028 line");
    const embedded = serializeState(svc.dehydrate());
    expect(embedded).not.toMatch(/<|>|\u2028/);
    const state = JSON.parse(embedded) as HydrationState;
    expect(state).toEqual(svc.dehydrate());

    // In the browser: the server's HTML, hydrated from the embedded state.
    // No DOM lib in this package's tsconfig: happy-dom's document, as the plain object it is.
    const dom = (globalThis as unknown as { document: DocumentLike }).document;
    const container = dom.createElement("div");
    container.innerHTML = html;
    dom.body.appendChild(container);
    const browser = createClient({
      url: server().url,
      token,
      initialState: state,
      live: { WebSocket: globalThis.WebSocket as never },
    });
    const recoverable: unknown[] = [];
    await act(async () => {
      hydrateRoot(
        container as never,
        <StrictMode>
          <SvcProvider client={browser}>
            <Page />
          </SvcProvider>
        </StrictMode>,
        { onRecoverableError: (error) => recoverable.push(error) },
      );
    });
    expect(recoverable).toEqual([]);
    expect(listItems()).toEqual(["a \u2028 line", "b </script><script>alert(1)</script>"]);
    expect(screen.getByText("count 2")).toBeTruthy();
    // Then live: a new todo shows without a reload.
    await act(() => client.fn("createTodo", { title: "c" }));
    await waitFor(() => expect(listItems()).toHaveLength(3));
    await screen.findByText("count 3");
  });

  it("calls as the request's bearer token, or as nobody", async () => {
    const { client, token } = await signedIn();
    await client.fn("createTodo", { title: "mine" });
    const withBearer = createServerClient({
      url: server().url,
      request: new Request("http://app.example/", {
        headers: { authorization: `Bearer ${token}` },
      }),
    });
    expect(await withBearer.prefetchQuery("Todo")).toMatchObject([{ title: "mine" }]);
    const anonymous = createServerClient({ url: server().url, request: { headers: {} } });
    expect(await anonymous.prefetchQuery("Todo")).toEqual([]);
    expect(anonymous.dehydrate().rows).toEqual({ '["Todo",null,null,null]': [] });
  });
});

describe("the hydration cache", () => {
  it("is dropped when the identity changes, so no one sees another's prefetched rows", async () => {
    const key = '["Todo",null,null,null]';
    const client = createClient({
      url: "http://127.0.0.1:1",
      token: "svc_someone",
      initialState: { v: 1, rows: { [key]: [{ id: "x" }] }, values: {} },
    });
    expect(client.hydration.rows(key)).toEqual([{ id: "x" }]);
    await client.setToken(null);
    expect(client.hydration.rows(key)).toBeUndefined();
  });

  it("ignores state of another shape", () => {
    const client = createClient({ url: "http://127.0.0.1:1", initialState: { v: 2 } as never });
    expect(client.hydration.toState()).toEqual({ v: 1, rows: {}, values: {} });
  });
});

describe("tokenOfRequest", () => {
  it.each([
    [{ authorization: "Bearer svc_abc" }, "svc_abc"],
    [{ cookie: "a=1; svc_session=svc_x%2By; b=2" }, "svc_x+y"],
    [{ authorization: "Basic x", cookie: "svc_session=svc_c" }, "svc_c"],
    [{ cookie: "svc_session=%E0%A4%A" }, undefined],
    [{ cookie: "other=1" }, undefined],
    [{}, undefined],
  ])("reads %o", (headers, token) => {
    expect(tokenOfRequest({ headers })).toBe(token);
  });
});
