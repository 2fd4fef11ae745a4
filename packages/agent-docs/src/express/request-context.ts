import type { Request } from "express";
import type { z } from "zod";
import { AgentDocsError } from "../errors.js";
import type { DocsLibrary } from "../load-docs.js";
import type { OpenAPIDocument } from "../openapi.js";
import { normalizeBaseURL } from "../urls.js";

/** What every route handler works with. */
export interface RouteContext {
  library: DocsLibrary;
  /** The OpenAPI document without `servers`. */
  openapi: OpenAPIDocument;
  /** The public base address for this request. */
  baseURL(req: Request): string;
}

const HOST = /^[A-Za-z0-9.-]+(?::[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::[0-9]{1,5})?$/;

/**
 * The base address a request reached: `publicURL` when configured, otherwise
 * its protocol (honouring express's `trust proxy`) and `Host` header.
 * Throws `INVALID_HOST` for a Host header that is not a host name.
 */
export function createBaseURLResolver(publicURL: string | undefined): (req: Request) => string {
  if (publicURL !== undefined) {
    const fixed = normalizeBaseURL(publicURL);
    return () => fixed;
  }
  return (req) => {
    const host = req.get("host");
    if (host === undefined || !HOST.test(host)) throw new AgentDocsError("INVALID_HOST");
    try {
      return normalizeBaseURL(`${req.protocol}://${host}`);
    } catch (cause) {
      throw new AgentDocsError("INVALID_HOST", { cause });
    }
  };
}

/**
 * Validates a request's query with an operation's schema. The first failing
 * parameter becomes an `INVALID_QUERY` error with that parameter's sentence.
 */
export function parseQuery<TSchema extends z.ZodObject>(
  operation: { query: TSchema; parameterErrors: Record<string, string> },
  query: unknown,
): z.output<TSchema> {
  const result = operation.query.safeParse(query);
  if (result.success) return result.data;
  const name = String(result.error.issues[0]?.path[0] ?? "");
  throw new AgentDocsError("INVALID_QUERY", {
    ...(Object.hasOwn(operation.parameterErrors, name) && {
      message: operation.parameterErrors[name],
    }),
    cause: result.error,
  });
}
