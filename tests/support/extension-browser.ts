// Chromium with the browser extension loaded unpacked, as a person would have it: the extension is
// built from extension/ for this file (never a build left in dist/), loaded with --load-extension
// into a fresh profile, and driven through its own pages and its service worker.
import { afterAll } from "bun:test";
import fs from "node:fs";
import { chromium, type BrowserContext, type Page, type Worker } from "playwright-core";
import { buildExtension } from "../../scripts/build-extension";
import { CHROMIUM_PATH } from "./browser";
import { directoryForThisFile } from "./temporary-directory";

export interface ExtensionBrowser {
  context: BrowserContext;
  /** The extension's service worker (its background). */
  worker: Worker;
  extensionId: string;
  /** A new tab on the extension's options page. */
  openOptions(): Promise<Page>;
  /** Sends a runtime message from an extension page (the options page), as the extension's own pages do; resolves to the answer. */
  send(message: Record<string, unknown>): Promise<any>;
  /** The extension API's id of the tab a Playwright page is in. */
  tabIdOf(page: Page): Promise<number>;
  /** The toolbar button's badge on that tab. */
  badgeOf(tabId: number): Promise<string>;
}

/**
 * Builds the extension, launches Chromium (`--headless=new`, which loads extensions) with it, and
 * closes it once the file's tests are done. Every host but loopback resolves to nothing, so no page
 * a test opens reaches the internet; a test serves other origins itself with `context.route`.
 */
export async function extensionBrowserForThisFile(): Promise<ExtensionBrowser> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium is missing at ${CHROMIUM_PATH}: the extension tests need it (apt-get install -y chromium, or set CHROMIUM_PATH)`);
  }
  const outputs = await buildExtension(directoryForThisFile("rhizome-extension-"));
  const dir = outputs.chromium.dir;
  const profile = directoryForThisFile("rhizome-extension-profile-");
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: false,
    timeout: 60_000,
    args: [
      "--headless=new",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-default-apps",
      "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
      `--disable-extensions-except=${dir}`,
      `--load-extension=${dir}`,
    ],
  });
  afterAll(() => context.close());
  const worker = context.serviceWorkers().find((candidate) => candidate.url().startsWith("chrome-extension://")) ?? (await context.waitForEvent("serviceworker", { timeout: 30_000 }));
  const extensionId = new URL(worker.url()).host;
  const openOptions = async () => {
    const page = await context.newPage();
    await page.goto(`chrome-extension://${extensionId}/options.html`);
    return page;
  };
  let messenger: Page | undefined;
  return {
    context,
    worker,
    extensionId,
    openOptions,
    async send(message) {
      messenger ??= await openOptions();
      return messenger.evaluate((sent) => (globalThis as any).chrome.runtime.sendMessage(sent), message);
    },
    async tabIdOf(page) {
      const url = page.url();
      const id = await worker.evaluate(async (wanted) => {
        const tabs: { id: number; url?: string }[] = await (globalThis as any).chrome.tabs.query({});
        return tabs.find((tab) => tab.url === wanted)?.id ?? null;
      }, url);
      if (id === null) throw new Error(`no tab shows ${url}`);
      return id;
    },
    badgeOf(tabId) {
      return worker.evaluate((tab) => (globalThis as any).chrome.action.getBadgeText({ tabId: tab }), tabId);
    },
  };
}
