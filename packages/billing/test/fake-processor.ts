import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { closeServer, listenOnLoopback } from "@svc/tooling/http-server";

// A local stand-in for the processor's API on 127.0.0.1: it records every
// request, creates customers and checkout sessions, and honours
// `Idempotency-Key` as Stripe does (a repeated key gets the first answer
// again, so the same key means the same customer).

/** A request the fake received, its form body parsed. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly form: URLSearchParams;
}

/** An answer: status and JSON body, or `"hang"` to never answer, or `"not-json"`. */
export type FakeAnswer = { readonly status: number; readonly body: unknown } | "hang" | "not-json";

/** A customer the fake created. */
export interface FakeCustomer {
  readonly id: string;
  readonly email: string | null;
  readonly userId: string | null;
}

export interface FakeProcessor {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly apiKey: string;
  readonly requests: RecordedRequest[];
  readonly customers: FakeCustomer[];
  /** Requests to one path. */
  requestsTo(path: string): RecordedRequest[];
  /** Overrides the answer to matching requests while it returns one (undefined: answer normally). */
  override: ((request: RecordedRequest) => FakeAnswer | undefined) | undefined;
  /** Delay before a customer answer is sent (ms), so concurrent callers overlap. */
  customerDelayMs: number;
  close(): Promise<void>;
}

function stripeError(status: number, type: string, message: string): FakeAnswer {
  return { status, body: { error: { type, message } } };
}

/** Starts a fake processor that accepts `apiKey` as its secret key. */
export async function startFakeProcessor(apiKey: string): Promise<FakeProcessor> {
  const requests: RecordedRequest[] = [];
  const customers: FakeCustomer[] = [];
  const idempotent = new Map<string, FakeAnswer>();
  let sessions = 0;

  function answer(request: RecordedRequest): FakeAnswer {
    if (request.headers.authorization !== `Bearer ${apiKey}`) {
      return stripeError(401, "invalid_request_error", "Invalid API Key provided: sk_***");
    }
    if (request.method !== "POST") return stripeError(405, "invalid_request_error", "POST only");
    if (request.path === "/v1/customers") {
      const customer: FakeCustomer = {
        id: `cus_fake${customers.length + 1}`,
        email: request.form.get("email"),
        userId: request.form.get("metadata[svc_user_id]"),
      };
      customers.push(customer);
      return { status: 200, body: { id: customer.id, object: "customer", email: customer.email } };
    }
    if (request.path === "/v1/checkout/sessions") {
      const customer = request.form.get("customer");
      if (!customers.some((known) => known.id === customer)) {
        return stripeError(400, "invalid_request_error", `No such customer: '${customer}'`);
      }
      sessions += 1;
      const id = `cs_test_fake${sessions}`;
      return {
        status: 200,
        body: { id, object: "checkout.session", url: `https://checkout.stripe.test/c/pay/${id}` },
      };
    }
    return stripeError(404, "invalid_request_error", `Unrecognized request URL (${request.path})`);
  }

  const fake: FakeProcessor = {
    url: "",
    apiKey,
    requests,
    customers,
    requestsTo: (path) => requests.filter((request) => request.path === path),
    override: undefined,
    customerDelayMs: 0,
    close: async () => {},
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body,
        form: new URLSearchParams(body),
      };
      requests.push(recorded);
      // Decided on arrival, as Stripe does: a repeated key replays the first answer.
      const key = req.headers["idempotency-key"];
      const cacheKey = typeof key === "string" ? `${recorded.path} ${key}` : undefined;
      let reply = fake.override?.(recorded);
      const replayed = reply === undefined && cacheKey !== undefined && idempotent.has(cacheKey);
      if (reply === undefined) {
        reply = (cacheKey === undefined ? undefined : idempotent.get(cacheKey)) ?? answer(recorded);
        if (cacheKey !== undefined && typeof reply === "object" && reply.status < 500) {
          idempotent.set(cacheKey, reply);
        }
      }
      const final = reply;
      if (final === "hang") return;
      const send = (): void => {
        if (final === "not-json") {
          res.writeHead(200, { "Content-Type": "text/html" });
          res.end("<html>gateway</html>");
          return;
        }
        res.writeHead(final.status, {
          "Content-Type": "application/json",
          ...(replayed && { "Idempotent-Replayed": "true" }),
        });
        res.end(JSON.stringify(final.body));
      };
      const delay = recorded.path === "/v1/customers" ? fake.customerDelayMs : 0;
      if (delay > 0) setTimeout(send, delay);
      else send();
    });
  });
  return Object.assign(fake, {
    url: await listenOnLoopback(server),
    close: () => closeServer(server),
  });
}
