// A Chromium page that hosts MCP Apps as a conversation's host would (mcp-app-host/host.ts, ext-apps'
// AppBridge): every request from the page or the app's frame is refused and recorded, every console
// error kept, and what the app asks of the host (tools/call, ui/open-link) reaches the test.
import { afterAll } from "bun:test";
import path from "node:path";
import type { Browser, BrowserContext, FrameLocator, Page } from "playwright-core";
import { launchChromium, watchPage, type PageWatch } from "./browser";
import type { ShowApp } from "./mcp-app-host/host";

export interface AppHost {
  page: Page;
  /** The app's frame. */
  app: FrameLocator;
  watch: PageWatch;
  /** Every request that tried to leave the page or its frame (all refused). */
  refused: string[];
  /** The tools/call requests the app sent to the host, in order. */
  toolCalls: { name: string; args: Record<string, unknown> }[];
  /** The links the app asked the host to open. */
  openedLinks: string[];
  show(options: ShowApp): Promise<void>;
  close(): Promise<void>;
}

let hostScript: Promise<string> | undefined;

/**
 * Chromium for this file's app hosts, closed once they are done (call it first, at the top of the
 * file). A sandboxed frame is kept in its page's process: Chromium otherwise gives it a process of
 * its own, and the requests it makes before Playwright has attached to that process escape routing.
 * The frame is as sandboxed either way (an opaque origin, scripts only).
 */
export async function chromiumForAppHosts(): Promise<Browser> {
  const browser = await launchChromium(["--disable-features=IsolateSandboxedIframes"]);
  afterAll(() => browser.close());
  return browser;
}

function hostScriptText(): Promise<string> {
  hostScript ??= Bun.build({ entrypoints: [path.join(import.meta.dir, "mcp-app-host/host.ts")], target: "browser", format: "esm" }).then(async (result) => {
    if (!result.success || !result.outputs[0]) throw new AggregateError(result.logs, "the test host did not build");
    return result.outputs[0].text();
  });
  return hostScript;
}

/** A host page; `callTool` answers the app's tools/call (the test asks the real MCP server). `noWebgl`: as a browser without WebGL. */
export async function openAppHost(browser: Browser, callTool: (name: string, args: Record<string, unknown>) => Promise<unknown>, options: { noWebgl?: boolean } = {}): Promise<AppHost> {
  const context: BrowserContext = await browser.newContext({ viewport: { width: 800, height: 1000 } });
  const refused: string[] = [];
  await context.route("**/*", (route) => {
    refused.push(route.request().url());
    return route.abort();
  });
  if (options.noWebgl) {
    // In every frame, the app's included: each WebGL context request fails.
    await context.addInitScript(() => {
      const original = HTMLCanvasElement.prototype.getContext;
      HTMLCanvasElement.prototype.getContext = function (this: HTMLCanvasElement, type: string, ...rest: unknown[]) {
        return /webgl/i.test(type) ? null : original.call(this, type as "2d", ...(rest as []));
      } as typeof original;
    });
  }
  const page = await context.newPage();
  const watch = watchPage(page);
  const toolCalls: AppHost["toolCalls"] = [];
  const openedLinks: string[] = [];
  await page.exposeFunction("hostCallTool", (name: string, args: Record<string, unknown>) => {
    toolCalls.push({ name, args });
    return callTool(name, args);
  });
  await page.exposeFunction("hostOpenLink", (url: string) => {
    openedLinks.push(url);
  });
  await page.setContent("<!doctype html><html><head><title>Test host</title></head><body></body></html>");
  await page.addScriptTag({ content: await hostScriptText(), type: "module" });
  await page.waitForFunction(() => "showApp" in window);
  return {
    page,
    app: page.frameLocator('iframe[title="MCP App"]'),
    watch,
    refused,
    toolCalls,
    openedLinks,
    show: (options) => page.evaluate((shown) => (window as unknown as { showApp(options: ShowApp): Promise<void> }).showApp(shown), options),
    close: () => context.close(),
  };
}
