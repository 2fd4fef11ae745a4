import { launchBrowser } from "@svc/tooling/browser";
import { afterAll, beforeAll } from "vitest";

// The headless Chromium the studio's browser tests drive.

export type Browser = Awaited<ReturnType<typeof launchBrowser>>;
export type BrowserContext = Awaited<ReturnType<Browser["newContext"]>>;
export type Page = Awaited<ReturnType<BrowserContext["newPage"]>>;

/** One browser for the calling file's tests: launched before them (allowed a minute), closed after. */
export function browserPerFile(): { readonly browser: Browser } {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.[Symbol.asyncDispose]();
  });
  return {
    get browser() {
      if (browser === undefined) throw new Error("the browser runs only inside the file's tests");
      return browser;
    },
  };
}
