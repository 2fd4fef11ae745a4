import MiniSearch, { type SearchOptions } from "minisearch";

/** What the search index holds per page. */
export interface SearchablePage {
  path: string;
  title: string;
  summary: string;
  body: string;
}

/** Matches pages to keyword queries; see {@link createSearchIndex}. */
export interface DocsSearchIndex {
  /** Paths of the matching pages, best first, at most `limit`. */
  search(query: string, limit: number): string[];
}

// Words that say nothing about a page ("how do I add api keys").
const STOP_WORDS: ReadonlySet<string> = new Set([
  "a",
  "an",
  "and",
  "are",
  "as",
  "at",
  "be",
  "by",
  "can",
  "do",
  "does",
  "for",
  "from",
  "how",
  "i",
  "in",
  "into",
  "is",
  "it",
  "my",
  "of",
  "on",
  "or",
  "the",
  "to",
  "what",
  "when",
  "with",
]);

/**
 * Splits text into words at anything that is not a letter or digit, so code
 * (`exists(Member, ...)`, `ctx.db`, `SVC_PUBLIC_URL`) yields its words.
 */
export function tokenizeText(text: string): string[] {
  return text.split(/[^\p{L}\p{N}]+/u).filter((word) => word !== "");
}

/**
 * Lowercases a token, drops stop words and folds simple English plurals
 * ("keys" -> "key", "policies" -> "policy"), the same way at index and at
 * query time.
 */
export function normalizeSearchTerm(term: string): string | null {
  const lower = term.toLowerCase();
  if (lower === "" || STOP_WORDS.has(lower)) return null;
  if (lower.length > 4 && lower.endsWith("ies")) return `${lower.slice(0, -3)}y`;
  if (lower.length > 3 && lower.endsWith("s") && !/(?:ss|us|is)$/.test(lower)) {
    return lower.slice(0, -1);
  }
  return lower;
}

// Titles weigh most, then the path's words and the summary; the body only
// breaks ties and finds pages whose head does not name the topic. Prefix
// matching from three characters ("pol" finds "policy", "jwt" finds "jwts")
// one typo from four characters and two from six ("polciy" finds "policy")
// keep short keywords exact.
const SEARCH_OPTIONS: SearchOptions = {
  boost: { title: 3, path: 2, summary: 2, body: 0.5 },
  weights: { prefix: 0.3, fuzzy: 0.45 },
  combineWith: "OR",
  prefix: (term) => term.length >= 3,
  fuzzy: (term) => (term.length >= 6 ? 2 : term.length >= 4 ? 1 : false),
  maxFuzzy: 2,
};

/**
 * Builds the MiniSearch index over title, path, summary and body of every
 * page. Queries combine keywords with OR; pages matching more of them, or
 * matching in heavier fields, rank first.
 *
 * @example
 * const index = createSearchIndex([{ path: "auth/jwt", title: "JWT", summary: "", body: "" }]);
 * index.search("jwt", 10); // ["auth/jwt"]
 */
export function createSearchIndex(pages: readonly SearchablePage[]): DocsSearchIndex {
  const miniSearch = new MiniSearch<SearchablePage>({
    idField: "path",
    fields: ["title", "path", "summary", "body"],
    storeFields: [],
    tokenize: tokenizeText,
    processTerm: normalizeSearchTerm,
    searchOptions: SEARCH_OPTIONS,
  });
  miniSearch.addAll(pages);
  return {
    search(query: string, limit: number): string[] {
      return miniSearch
        .search(query)
        .slice(0, limit)
        .map((result) => String(result.id));
    },
  };
}
