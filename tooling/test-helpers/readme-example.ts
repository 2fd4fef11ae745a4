import { readFileSync } from "node:fs";
import { expect } from "vitest";

/**
 * Holds a README's first ```ts block to the test that runs it: every
 * statement of the block (trimmed, blank and import lines aside) must stand
 * in the test file's source, so the README cannot drift from the code the
 * test proves. `adapt` rewrites a README line where the test must differ
 * (a temporary path for the README's fixed one, say).
 *
 * @example
 * it("matches the code in README.md", () => {
 *   expectReadmeExampleIn(new URL("../README.md", import.meta.url), new URL(import.meta.url));
 * });
 */
export function expectReadmeExampleIn(
  readme: URL,
  testFile: URL,
  adapt: (line: string) => string = (line) => line,
): void {
  const source = readFileSync(testFile, "utf8");
  const example = /```ts\n([\s\S]*?)```/.exec(readFileSync(readme, "utf8"))?.[1] ?? "";
  const statements = example
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("import "))
    .map(adapt);
  // A block this short means the pattern missed the example, not that it is tiny.
  expect(statements.length).toBeGreaterThan(5);
  for (const statement of statements) expect(source).toContain(statement);
}
