import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

/**
 * Headless Chromium for browser tests: Debian's `chromium` package at
 * `/usr/bin/chromium` (`.ci/run` installs it), overridable with
 * `SVC_TEST_CHROMIUM`. No browser is downloaded.
 */
export const CHROMIUM_PATH = process.env.SVC_TEST_CHROMIUM ?? "/usr/bin/chromium";

const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
];

/** Launches Chromium; dispose it with `await using`. */
export async function launchBrowser(): Promise<Browser & AsyncDisposable> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    headless: true,
  });
  return Object.assign(browser, { [Symbol.asyncDispose]: () => browser.close() });
}

/**
 * Where failure screenshots go: `SVC_TEST_ARTIFACTS` or
 * `<repo>/test-artifacts` (ignored by git, kept by CI as artifacts).
 */
export function artifactsDir(): string {
  const dir =
    process.env.SVC_TEST_ARTIFACTS ?? join(import.meta.dirname, "..", "..", "test-artifacts");
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Runs `body` and, when it throws, saves a full-page screenshot of every
 * open page of `context` as `<name>-<n>.png` before rethrowing, so a failed
 * browser test leaves a picture of what the user saw.
 */
export async function screenshotOnFailure<T>(
  context: BrowserContext | Browser,
  name: string,
  body: () => Promise<T>,
): Promise<T> {
  try {
    return await body();
  } catch (error) {
    const pages: Page[] =
      "pages" in context ? context.pages() : context.contexts().flatMap((c) => c.pages());
    const dir = artifactsDir();
    const safe = name.replace(/[^a-z0-9-]+/gi, "-");
    await Promise.all(
      pages.map((page, index) =>
        page
          .screenshot({ path: join(dir, `${safe}-${index + 1}.png`), fullPage: true })
          .catch(() => undefined),
      ),
    );
    throw error;
  }
}
