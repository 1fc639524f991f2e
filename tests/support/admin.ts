/**
 * The admin console in a real browser: the workforce setup served on a loopback port, Debian's
 * Chromium on an offline page, sign-in by pasting a token, an axe-core check of the page, and the
 * console's own requests recorded so a test can assert that no token ever appears in a URL.
 */
import assert from "node:assert/strict";
import axe from "axe-core";
import type { Page } from "playwright-core";
import { launchBrowser, saveScreenshot, type TestBrowser } from "./browser.ts";
import { serveApp, type Served } from "./cable.ts";
import { setupWorkforce, type WorkforceCtx } from "./workforce.ts";

export interface ConsoleCtx extends WorkforceCtx {
  app: Served;
  browser: TestBrowser;
  page: Page;
  /** Requests to other hosts the page tried (and was refused). */
  refused: string[];
  /** Every URL the page requested. */
  urls: string[];
  /** CSP refusals and page errors reported by the browser. */
  problems: string[];
  /** Opens a console path (`/admin/...`) in the page. */
  open(path: string): Promise<void>;
  /** Saves the whole page as `.screenshots/<name>.png` and its first 1280×800 as
   * `.screenshots/docs/<name>.png` (the size docs/images keeps), when screenshots are wanted. */
  shoot(name: string): Promise<void>;
}

export async function withConsole(
  fn: (ctx: ConsoleCtx) => Promise<void>,
  options: { env?: Record<string, string>; hostileContent?: boolean } = {},
): Promise<void> {
  const ctx = await setupWorkforce({ env: options.env, start: new Date().toISOString() });
  const app = serveApp(ctx.t);
  const browser = await launchBrowser();
  try {
    const { page, refused } = await browser.offlinePage(app.url);
    const urls: string[] = [];
    const problems: string[] = [];
    const csp: string[] = [];
    page.on("request", (req) => urls.push(req.url()));
    page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
    page.on("console", (msg) => {
      if (msg.type() !== "error" || /favicon|status of 40[14]/.test(msg.text())) return;
      if (/Content Security Policy/.test(msg.text())) csp.push(msg.text());
      else problems.push(msg.text());
    });
    page.setDefaultTimeout(10_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await fn(Object.assign(ctx, {
      app,
      browser,
      page,
      refused,
      urls,
      problems,
      open: async (path: string) => {
        await page.goto(app.url + path);
      },
      shoot: async (name: string) => {
        await saveScreenshot(page, `${name}.png`, { fullPage: true });
        await saveScreenshot(page, `docs/${name}.png`);
      },
    }));
    assert.deepEqual(refused, [], "the console loads nothing from another host");
    assert.deepEqual(problems, [], "no page error");
    // Markup planted in content may try an inline handler or style while it is sanitised: the
    // CSP refuses it. Nothing else of the console's own may need what the CSP forbids.
    const allowed = options.hostileContent ? /inline event handler|Applying inline style/ : /^$/;
    assert.deepEqual(csp.filter((m) => !allowed.test(m)), [], "no CSP refusal");
  } finally {
    await browser.close();
    await app.close();
    await ctx.close();
  }
}

/** Pastes `token` on the sign-in page and waits for the page the console goes to. */
export async function signIn(ctx: ConsoleCtx, token: string): Promise<void> {
  const { page } = ctx;
  await page.getByLabel(/token/i).fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/**
 * axe-core on the current page: no `serious` or `critical` violation. It runs two frames after
 * the call, as a user meets the page: what the page does once a frame (a table that overflows
 * after a resize takes focus, ui/scroll-focus.ts) has happened by then.
 */
export async function assertAccessible(page: Page, label: string): Promise<void> {
  await page.evaluate(() =>
    new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))
  );
  if (!(await page.evaluate("typeof window.axe === 'object'"))) {
    // Evaluated through the DevTools protocol, so the page's CSP (no inline script) still holds.
    await page.evaluate((axe as unknown as { source: string }).source);
  }
  interface Violation {
    id: string;
    impact: string | null;
    nodes: { target: string[] }[];
  }
  const violations = await page.evaluate(async () => {
    const runner = (globalThis as unknown as {
      axe: { run(context: unknown, options: unknown): Promise<{ violations: Violation[] }> };
    }).axe;
    const result = await runner.run(document, { resultTypes: ["violations"] });
    return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  });
  assert.deepEqual(violations, [], `accessibility of ${label}`);
}

/** No URL the page requested carries any of `tokens`; nothing sits in localStorage. */
export async function assertTokensNotInUrls(ctx: ConsoleCtx, tokens: string[]): Promise<void> {
  for (const url of ctx.urls) {
    for (const token of tokens) assert.ok(!url.includes(token), `a token in ${url}`);
  }
  assert.ok(!ctx.page.url().includes(tokens[0]));
  assert.equal(await ctx.page.evaluate("localStorage.length"), 0);
}

/** How far the page scrolls sideways: 0 or less when it does not. */
export const sidewaysScroll = (page: Page): Promise<number> =>
  page.evaluate(() => document.documentElement.scrollWidth - globalThis.innerWidth);

/**
 * Saves `<name>-1440` and `<name>-390` (see {@link ConsoleCtx.shoot}), each width checked for
 * sideways scroll and accessibility; the page is left at 1280 px.
 */
export async function shootWidths(ctx: ConsoleCtx, name: string): Promise<void> {
  for (const width of [1440, 390]) {
    await ctx.page.setViewportSize({ width, height: 900 });
    assert.ok((await sidewaysScroll(ctx.page)) <= 0, `${name} scrolls sideways at ${width} px`);
    await assertAccessible(ctx.page, `${name} at ${width} px`);
    await ctx.shoot(`${name}-${width}`);
  }
  await ctx.page.setViewportSize({ width: 1280, height: 800 });
}
