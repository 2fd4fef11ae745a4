import { type HTMLValue, html, type SafeHTML } from "./html.js";

/** Where the studio is mounted. */
export const STUDIO_PATH = "/studio";

/** A studio URL: the path segments percent-encoded, the query from `params` (empty values left out). */
export function studioURL(
  segments: readonly string[],
  params: Readonly<Record<string, string | undefined>> = {},
): string {
  const path = [STUDIO_PATH, ...segments.map((segment) => encodeURIComponent(segment))].join("/");
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== "") query.set(key, value);
  }
  const search = query.toString();
  return search === "" ? path : `${path}?${search}`;
}

/** The hidden CSRF field every studio form carries. */
export function csrfField(csrfToken: string): SafeHTML {
  return html`<input type="hidden" name="_csrf" value="${csrfToken}">`;
}

/** An error envelope as the page shows it (`role="alert"`, code then message). */
export function errorBox(error: { readonly code: string; readonly message: string }): SafeHTML {
  return html`<div class="error" role="alert"><code>${error.code}</code> ${error.message}</div>`;
}

/** A success line, e.g. after a job was retried. */
export function noticeBox(message: string): SafeHTML {
  return html`<div class="notice" role="status">${message}</div>`;
}

/** "Next page" (and "first page" when not on it) links for a cursor-paged list. */
export function pagerLinks(input: {
  readonly segments: readonly string[];
  readonly params: Readonly<Record<string, string | undefined>>;
  readonly cursor: string | undefined;
  readonly nextCursor: string | null;
}): SafeHTML {
  const { segments, params, cursor, nextCursor } = input;
  return html`<nav class="pager">
    ${cursor !== undefined && html`<a href="${studioURL(segments, params)}">First page</a>`}
    ${nextCursor !== null && html`<a href="${studioURL(segments, { ...params, cursor: nextCursor })}" rel="next">Next page</a>`}
  </nav>`;
}

/** The navigation: groups of [label, path segments]. */
const NAV: readonly (readonly [
  group: string,
  items: readonly (readonly [label: string, segments: readonly string[]])[],
])[] = [
  [
    "Data",
    [
      ["Entities", []],
      ["Functions", ["functions"]],
      ["Policies", ["policies"]],
    ],
  ],
  [
    "Accounts",
    [
      ["Users", ["users"]],
      ["Sessions", ["sessions"]],
      ["API keys", ["api-keys"]],
      ["Audit", ["audit"]],
    ],
  ],
  [
    "Operations",
    [
      ["Jobs", ["jobs"]],
      ["Logs", ["logs"]],
      ["Metrics", ["metrics"]],
      ["Live", ["live"]],
    ],
  ],
];

/** The navigation entries a page can name as its own (`renderPage`'s `section`). */
export type StudioSection =
  | "Entities"
  | "Functions"
  | "Policies"
  | "Users"
  | "Sessions"
  | "API keys"
  | "Audit"
  | "Jobs"
  | "Logs"
  | "Metrics"
  | "Live";

/**
 * The whole document: title, the navigation (the page's own `section`
 * marked current) and sign-out form when signed in (`csrfToken` given),
 * then `body`. Styles and the script are files of the studio itself, so
 * the CSP allows no inline code.
 */
export function renderPage(input: {
  readonly title: string;
  readonly body: HTMLValue;
  readonly csrfToken?: string | undefined;
  readonly section?: StudioSection | undefined;
}): SafeHTML {
  const { title, body, csrfToken, section } = input;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title} · svc studio</title>
<link rel="icon" href="${STUDIO_PATH}/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${STUDIO_PATH}/assets/studio.css">
<script src="${STUDIO_PATH}/assets/studio.js" defer></script>
</head>
<body>
<header class="top">
  <a class="brand" href="${STUDIO_PATH}">svc <span>studio</span></a>
  ${
    csrfToken !== undefined &&
    html`<nav aria-label="Studio">${NAV.map(
      ([group, items]) =>
        html`<span class="group">${group}</span>${items.map(
          ([label, segments]) =>
            html`<a href="${studioURL(segments)}"${label === section && html` aria-current="page"`}>${label}</a>`,
        )}`,
    )}</nav>
  <form method="post" action="${STUDIO_PATH}/sign-out" class="sign-out">${csrfField(csrfToken)}<button type="submit">Sign out</button></form>`
  }
</header>
<main>
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`;
}
