/**
 * A real browser for page tests: Debian's Chromium driven by playwright-core (never a browser
 * download). `offline` pages may reach only the served app: every other request is refused and
 * recorded, so a test can assert that a page needs nothing from the internet.
 */
import { type Browser, chromium, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** Where screenshots go (ignored by git); a test names its file. */
export const SCREENSHOTS = new URL("../../.screenshots/", import.meta.url);

/**
 * Whether this run saves screenshots: only with `TEST_SCREENSHOTS=1` (docs/testing.md). Encoding a
 * tall page as PNG costs more CPU than most of a page test's checks, and nothing in a test reads
 * the file back.
 */
export const screenshotsWanted = (): boolean => Deno.env.get("TEST_SCREENSHOTS") === "1";

/** Saves what `target` shows as `.screenshots/<name>` when screenshots are wanted. */
export async function saveScreenshot(
  target: { screenshot(options: { path: string }): Promise<unknown> },
  name: string,
  options: Record<string, unknown> = {},
): Promise<void> {
  if (!screenshotsWanted()) return;
  const file = new URL(name, SCREENSHOTS);
  await Deno.mkdir(new URL(".", file), { recursive: true });
  await target.screenshot({ ...options, path: file.pathname });
}

export interface TestBrowser {
  browser: Browser;
  /** A page that may only reach `origin`; `refused` lists what else it tried to load. */
  offlinePage(origin: string): Promise<{ page: Page; refused: string[] }>;
  /** The whole page as `.screenshots/<name>` when screenshots are wanted; answers the path. */
  screenshot(page: Page, name: string): Promise<string>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  return {
    browser,
    async offlinePage(origin) {
      const context = await browser.newContext();
      const refused: string[] = [];
      await context.route("**/*", (route) => {
        const url = route.request().url();
        if (url.startsWith(origin) || url.startsWith("blob:") || url.startsWith("data:")) {
          return route.continue();
        }
        refused.push(url);
        return route.abort("internetdisconnected");
      });
      return { page: await context.newPage(), refused };
    },
    async screenshot(page, name) {
      await saveScreenshot(page, name, { fullPage: true });
      return new URL(name, SCREENSHOTS).pathname;
    },
    close: () => browser.close(),
  };
}
