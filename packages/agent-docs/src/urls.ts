import { AgentDocsError, quoteForMessage } from "./errors.js";

/**
 * Checks and normalizes the public base address of the agent API: an
 * absolute http(s) URL without query or fragment, no trailing slash (a path
 * prefix is kept). Throws `AgentDocsError` `INVALID_OPTIONS` otherwise.
 *
 * @example
 * normalizeBaseURL("https://svc.example.com/"); // "https://svc.example.com"
 */
export function normalizeBaseURL(baseURL: string): string {
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch (cause) {
    throw new AgentDocsError("INVALID_OPTIONS", {
      message: `The base URL ${quoteForMessage(baseURL)} is not an absolute URL.`,
      cause,
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new AgentDocsError("INVALID_OPTIONS", {
      message: `The base URL ${quoteForMessage(baseURL)} must use http or https.`,
    });
  }
  if (url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
    throw new AgentDocsError("INVALID_OPTIONS", {
      message: `The base URL ${quoteForMessage(baseURL)} must have no credentials, query or fragment.`,
    });
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** The human documentation page of `path`: `<base>/docs/<path>`. */
export function docPageURL(baseURL: string, path: string): string {
  return `${baseURL}/docs/${path.split("/").map(encodeURIComponent).join("/")}`;
}

/** The markdown of `path` through the agent API: `<base>/agent/v1/docs/read?path=<path>`. */
export function docMarkdownURL(baseURL: string, path: string): string {
  return `${baseURL}/agent/v1/docs/read?path=${encodeURIComponent(path).replaceAll("%2F", "/")}`;
}
