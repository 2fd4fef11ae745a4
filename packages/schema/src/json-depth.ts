/** How deeply a request body's arrays and objects may nest. */
export const MAX_JSON_DEPTH = 64;

/**
 * True when `value` nests arrays/objects deeper than `limit`. Iterative, so
 * a hostile body (V8 parses 500,000 levels happily) cannot overflow the stack
 * here, and nothing after this check has to fear it either.
 */
export function exceedsDepth(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  if (typeof value !== "object" || value === null) return false;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const next = stack.pop();
    if (next === undefined) break;
    const [node, depth] = next;
    if (depth > limit) return true;
    const children = Array.isArray(node) ? node : Object.values(node as Record<string, unknown>);
    for (const child of children) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
