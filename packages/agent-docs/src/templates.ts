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
 * The starter templates, one per example app in the repository's
 * `examples/` folder (a test holds the two equal), most basic first.
 */
export const svcTemplates: readonly TemplateEntry[] = [
  defineTemplate({
    template: "default",
    name: "Default starter",
    blurb:
      "The minimal svc app: one Note entity owned by the signed-in user, a row policy, one mutation and one paginated query.",
    shows: ["schema", "owner field", "row policies", "mutation", "query", "cursor pagination"],
  }),
  defineTemplate({
    template: "todo",
    name: "Todo lists",
    blurb:
      "Lists and todos with an owner, a reference between entities, an enum field and an index, with queries, mutations and an action that calls a query.",
    shows: [
      "schema",
      "references",
      "enum fields",
      "indexes",
      "row policies",
      "query",
      "mutation",
      "action",
      "custom errors",
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
