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

export interface TestBrowser {
  browser: Browser;
  /** A page that may only reach `origin`; `refused` lists what else it tried to load. */
  offlinePage(origin: string): Promise<{ page: Page; refused: string[] }>;
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
      await Deno.mkdir(SCREENSHOTS, { recursive: true });
      const path = new URL(name, SCREENSHOTS).pathname;
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    close: () => browser.close(),
  };
}
