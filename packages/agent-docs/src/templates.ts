import type { TemplateEntry } from "./schemas.js";

/** The svc source repository; template sources live under its `examples/`. */
export const SVC_REPOSITORY_URL = "https://github.com/svc-dev/svc";

/** The scaffold command that creates an app from `template`. */
export function scaffoldCommand(template: string): string {
  return `npm create svc@latest my-app -- --template ${template}`;
}

/** The source address of `template`: its folder under `examples/` in the repository. */
export function templateSourceURL(template: string): string {
  return `${SVC_REPOSITORY_URL}/tree/main/examples/${template}`;
}

function defineTemplate(
  entry: Pick<TemplateEntry, "template" | "name" | "blurb" | "shows" | "demo">,
): TemplateEntry {
  return {
    template: entry.template,
    name: entry.name,
    blurb: entry.blurb,
    shows: [...entry.shows],
    command: scaffoldCommand(entry.template),
    source: templateSourceURL(entry.template),
    ...(entry.demo !== undefined && { demo: entry.demo }),
  };
}

/**
 * What every template with a React page shows: the page, its magic-code
 * sign-in, then `features` (its other sign-ins and live reads), then the
 * React mutations and the typed client it is written with.
 */
function reactFrontEnd(...features: string[]): string[] {
  return ["React front end", "magic-code sign-in", ...features, "React mutations", "typed client"];
}

/**
 * The starter templates, one per example app in the repository's
 * `examples/` folder (a test holds the two equal, and checks each `shows`
 * feature against the example's manifest, functions and page), most basic
 * first.
 */
export const svcTemplates: readonly TemplateEntry[] = [
  defineTemplate({
    template: "default",
    name: "Default starter",
    blurb:
      "The minimal svc app: one Note entity owned by the signed-in user, a row policy, one mutation and one paginated query. No front end.",
    shows: [
      "schema",
      "owner field",
      "indexes",
      "row policies",
      "mutation",
      "query",
      "cursor pagination",
    ],
  }),
  defineTemplate({
    template: "todo",
    name: "Todo lists",
    blurb:
      "Your todos on a React page: magic-code sign-in, todos that update live across tabs, lists referenced by todos, an enum priority and an index, with queries, mutations and an action that calls a query.",
    shows: [
      "schema",
      "owner field",
      "references",
      "enum fields",
      "indexes",
      "row policies",
      "query",
      "mutation",
      "action",
      "action calling functions",
      "cursor pagination",
      "custom errors",
      ...reactFrontEnd("live entity queries"),
    ],
  }),
  defineTemplate({
    template: "chat",
    name: "Chat",
    blurb:
      "Channels with live messages and a list of who is online: a realtime room per channel with presence, display names, policies that check the channel exists, on a React page with magic-code sign-in.",
    shows: [
      "schema",
      "owner field",
      "references",
      "unique fields",
      "indexes",
      "row policies",
      "policy subqueries",
      "rooms",
      "presence",
      "query",
      "mutation",
      "cursor pagination",
      "custom errors",
      ...reactFrontEnd("live entity queries", "live query functions"),
    ],
  }),
  defineTemplate({
    template: "shop",
    name: "Shop",
    blurb:
      "Products, a cart per user, a checkout that checks and takes stock and writes the order in one transaction (through a before-delete hook with admin rights), and order history, on a React page: the catalogue for visitors, a live cart and orders after magic-code sign-in; seed products loaded with the admin token.",
    shows: [
      "schema",
      "owner field",
      "references",
      "enum fields",
      "indexes",
      "unique fields",
      "row policies",
      "policy subqueries",
      "query",
      "mutation",
      "hooks",
      "account deletion cleanup",
      "cursor pagination",
      "custom errors",
      "seed data",
      ...reactFrontEnd("live entity queries", "live query functions"),
    ],
  }),
  defineTemplate({
    template: "consumer",
    name: "Consumer app",
    blurb:
      "A signed-in app on a React page: email-code or password sign-in, email verification, a profile, organizations with roles, invitations by email and projects scoped to the active organization, API keys shown once, and account deletion that cleans up after the user.",
    shows: [
      "schema",
      "owner field",
      "references",
      "enum fields",
      "indexes",
      "unique fields",
      "row policies",
      "policy subqueries",
      "organizations",
      "roles",
      "query",
      "mutation",
      "hooks",
      "account deletion cleanup",
      "custom errors",
      "email verification",
      ...reactFrontEnd(
        "password sign-in",
        "organization switching",
        "API keys",
        "account deletion",
        "live query functions",
      ),
    ],
  }),
  defineTemplate({
    template: "waitlist",
    name: "Waitlist",
    blurb:
      "Sign up with a magic code, see your place in line, and an admin view to invite people, on a React page that stays live: places handed out by a hook with admin rights, admins granted with the admin token, verified addresses only.",
    shows: [
      "schema",
      "owner field",
      "enum fields",
      "indexes",
      "unique fields",
      "row policies",
      "policy subqueries",
      "query",
      "mutation",
      "hooks",
      "account deletion cleanup",
      "admin token",
      "cursor pagination",
      "custom errors",
      "email verification",
      ...reactFrontEnd("live query functions"),
    ],
  }),
  defineTemplate({
    template: "ai-chat",
    name: "AI chat",
    blurb:
      "Conversations whose assistant replies come from an OpenAI-compatible model endpoint (or a built-in echo model), configured by environment variables: an action stores the question, calls the model and stores the reply, and the React page shows both live as they are stored.",
    shows: [
      "schema",
      "owner field",
      "references",
      "enum fields",
      "indexes",
      "row policies",
      "policy subqueries",
      "mutation",
      "action",
      "action calling functions",
      "external API call",
      "environment settings",
      "hooks",
      "account deletion cleanup",
      "custom errors",
      ...reactFrontEnd("live entity queries"),
    ],
  }),
];

function matches(entry: TemplateEntry, words: readonly string[]): boolean {
  const haystack = [entry.template, entry.name, entry.blurb, ...entry.shows].map((text) =>
    text.toLowerCase(),
  );
  return words.every((word) => haystack.some((text) => text.includes(word)));
}

/**
 * The starter templates, filtered when `query` is given: a template matches
 * when each word of the query occurs (case-insensitive) in its id, name,
 * blurb or one of its `shows` features. An empty query lists them all.
 *
 * @example
 * listTemplates("policies").map((entry) => entry.template); // ["default", "todo"]
 */
export function listTemplates(query?: string): TemplateEntry[] {
  const words = (query ?? "")
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== "");
  const selected =
    words.length === 0 ? svcTemplates : svcTemplates.filter((entry) => matches(entry, words));
  return selected.map((entry) => ({ ...entry, shows: [...entry.shows] }));
}
