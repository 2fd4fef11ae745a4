import { join } from "node:path";
import {
  serverDatabaseEnv,
  type TestDatabase,
  type TestDatabaseTarget,
} from "@svc/tooling/databases";
import { afterEach, beforeEach, expect } from "vitest";
import { type AppServer, type AppServerOptions, appServerPerTest } from "./app-server.js";
import { type AuthTestServer, createClock, startAuthServer } from "./auth-fixtures.js";
import { ADMIN_TOKEN } from "./fixtures.js";
import { entity, OWNER, ownRowsPolicy, signInManifest, writeTestApp } from "./test-app.js";

// The studio tests' app and an HTTP client that behaves like a browser
// on the studio's forms: it keeps the studio cookie, reads the CSRF token
// out of each page and posts url-encoded forms with the page's Origin.

/**
 * An app with every field kind the studio's forms handle: Notes are
 * owner-only (so only the admin studio sees them all) and may point at a
 * List (a relation), Users feed the users page, and the functions echo,
 * refuse (403, so a refused job goes dead at once), crash (an unexpected
 * error) and schedule jobs.
 */
export function writeStudioApp(dir: string): string {
  const manifest = signInManifest("studio-app", {
    userFields: { name: { type: "string", optional: true } },
    entities: [
      entity("Note", {
        title: "string",
        count: "int",
        done: "bool",
        tag: { type: "enum", values: ["red", "blue"] },
        meta: { type: "json", optional: true },
        ownerId: OWNER,
        listId: { type: "id", target: "List", optional: true },
        createdAt: { type: "datetime", defaultNow: true },
      }),
      {
        name: "List",
        fields: [
          { name: "name", type: "string" },
          // Secret-looking: audit events never hold its values.
          { name: "accessToken", type: "string", optional: true },
        ],
      },
    ],
    // A room kind, for the Live page's room sockets.
    rooms: [{ name: "lobby", join: "auth.userId != null" }],
    policies: [ownRowsPolicy("own notes", "Note", { edits: true })],
  });
  return writeTestApp(dir, manifest, {
    echo: `export default { type: "query", handler: async (ctx, args) => ({ echoed: args, admin: ctx.auth.isAdmin }) };\n`,
    refuse: `export default { type: "mutation", handler: async (ctx) => ctx.error("REFUSED", "This is refused.", 403) };\n`,
    crash: `export default { type: "mutation", handler: async () => { throw new Error("db password is hunter2"); } };\n`,
    scheduleRefused: `export default {
  type: "mutation",
  handler: async (ctx, args) => ({ jobId: await ctx.scheduler.runAfter(0, "refuse", args) }),
};
`,
    scheduleLater: `export default {
  type: "action",
  handler: async (ctx, args) => ({ jobId: await ctx.scheduler.runAt(Date.UTC(2040, 0, 1), "refuse", args) }),
};
`,
  });
}

/** Boots the real server on `target` with the studio app in `dir` and a frozen clock. */
export function startStudioServer(
  target: TestDatabaseTarget,
  dir: string,
  env: Record<string, string> = {},
): Promise<AuthTestServer> {
  return startAuthServer(
    {
      ...serverDatabaseEnv(target, { jobsFile: join(dir, "jobs.db") }),
      SVC_MANIFEST: join(dir, "svc.json"),
      ...env,
    },
    createClock(),
  );
}

/** The studio app and how it boots, for the app-server fixture. */
export const STUDIO_APP: AppServerOptions<AuthTestServer> = {
  writeApp: writeStudioApp,
  start: ({ target, dir }, env) => startStudioServer(target, dir, env),
};

/** The studio app and its server for the current test, with a studio client. */
export interface StudioPerTest extends AppServer<AuthTestServer> {
  /** A client of the server the test started with; signed in as the admin unless told otherwise. */
  readonly studio: StudioClient;
}

/**
 * The studio app on a fresh database for each test of the calling suite
 * (the app-server fixture), a studio client signed in as the admin (unless
 * `signIn` is false), and after each test the check that the server logged
 * no internal error: no page, however bad its input, may be one.
 */
export function studioPerTest(
  database: TestDatabase,
  options: { readonly signIn?: boolean } = {},
): StudioPerTest {
  const app = appServerPerTest(database, STUDIO_APP);
  let studio: StudioClient | undefined;
  beforeEach(async () => {
    studio = new StudioClient(app.server);
    if (options.signIn !== false) await studio.signIn();
  });
  afterEach(() => {
    expect(app.server.internalErrors).toEqual([]);
  });
  return Object.defineProperty(app, "studio", {
    get: () => {
      if (studio === undefined) throw new Error("the studio client exists only inside a test");
      return studio;
    },
  }) as StudioPerTest;
}

/** A studio answer: status, headers, the page's markup and any redirect target. */
export interface StudioPage {
  readonly status: number;
  readonly headers: Headers;
  readonly html: string;
  readonly location: string | null;
}

const ENTITIES: Readonly<Record<string, string>> = {
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#39;": "'",
  "&#96;": "`",
  "&amp;": "&",
};

/** Markup as the reader sees it: tags dropped, the studio's entities decoded. */
export function textOf(markup: string): string {
  return markup
    .replace(/<[^>]*>/g, "")
    .replace(/&(lt|gt|quot|#39|#96|amp);/g, (entity) => ENTITIES[entity] ?? entity)
    .trim();
}

/** The error box of a page (`role="alert"`): its code and message, or undefined. */
export function alertOf(page: StudioPage): { code: string; message: string } | undefined {
  const match = /<div class="error" role="alert"><code>([^<]*)<\/code> ([^<]*)<\/div>/.exec(
    page.html,
  );
  if (match === null) return undefined;
  return { code: textOf(match[1] ?? ""), message: textOf(match[2] ?? "") };
}

/** The rows of an entity page's table: id and each `data-field` cell's text. */
export function rowsOf(page: StudioPage): { id: string; cells: Record<string, string> }[] {
  const rows: { id: string; cells: Record<string, string> }[] = [];
  for (const row of page.html.matchAll(/<tr data-id="([^"]*)"[^>]*>([\s\S]*?)<\/tr>/g)) {
    const cells: Record<string, string> = {};
    for (const cell of (row[2] ?? "").matchAll(/<td data-field="([^"]*)"[^>]*>([\s\S]*?)<\/td>/g)) {
      cells[cell[1] ?? ""] = textOf(cell[2] ?? "");
    }
    rows.push({ id: textOf(row[1] ?? ""), cells });
  }
  return rows;
}

/** Whether the page is the sign-in form. */
export function isSignInForm(page: StudioPage): boolean {
  return page.html.includes('action="/studio/sign-in"') && page.html.includes('name="token"');
}

/**
 * One browser's studio: the cookie it was given and the CSRF token of the
 * last signed-in page it loaded.
 */
export class StudioClient {
  cookie: string | undefined;
  csrf: string | undefined;
  readonly url: string;

  constructor(server: { url: string }) {
    this.url = server.url;
  }

  /** Sends a request with the kept cookie; keeps any cookie and CSRF token the answer brings. */
  async request(
    method: string,
    path: string,
    options: {
      readonly form?: Readonly<Record<string, string>>;
      /** A body sent as it is (with the content type `headers` gives). */
      readonly rawBody?: string;
      readonly headers?: Readonly<Record<string, string>>;
    } = {},
  ): Promise<StudioPage> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookie !== undefined) headers.cookie = this.cookie;
    let body: string | undefined = options.rawBody;
    if (options.form !== undefined) {
      headers["content-type"] ??= "application/x-www-form-urlencoded";
      body = new URLSearchParams(options.form).toString();
    }
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers,
      redirect: "manual",
      ...(body !== undefined && { body }),
    });
    for (const setCookie of response.headers.getSetCookie()) {
      const [pair] = setCookie.split(";");
      if (pair?.startsWith("svc_studio=")) {
        this.cookie = pair === "svc_studio=" ? undefined : pair;
      }
    }
    const html = await response.text();
    const csrf = /name="_csrf" value="([0-9a-f]{64})"/.exec(html)?.[1];
    if (csrf !== undefined) this.csrf = csrf;
    return {
      status: response.status,
      headers: response.headers,
      html,
      location: response.headers.get("location"),
    };
  }

  /** GETs a studio page. */
  get(path: string): Promise<StudioPage> {
    return this.request("GET", path);
  }

  /**
   * POSTs a form as the studio's own page would: with the page's Origin and
   * the CSRF token (each left out or replaced when a test says so).
   */
  post(
    path: string,
    fields: Readonly<Record<string, string>> = {},
    options: { readonly csrf?: string | null; readonly origin?: string | null } = {},
  ): Promise<StudioPage> {
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    const origin = options.origin === undefined ? this.url : options.origin;
    return this.request("POST", path, {
      form: { ...(csrf !== null && csrf !== undefined && { _csrf: csrf }), ...fields },
      headers: origin === null ? {} : { origin },
    });
  }

  /** Signs in with the admin token (or `token`) and loads the page the sign-in returns to. */
  async signIn(token: string = ADMIN_TOKEN): Promise<StudioPage> {
    const answer = await this.post("/studio/sign-in", { token }, { csrf: null });
    expect(answer.status, answer.html).toBe(303);
    return this.get(answer.location ?? "/studio");
  }
}
