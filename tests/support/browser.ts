// Headless Chromium for the page tests and the viewer benchmark: Debian's /usr/bin/chromium driven
// by playwright-core, with software WebGL (SwiftShader) so sigma draws on a machine with no GPU.
import { afterAll } from "bun:test";
import fs from "node:fs";
import { chromium, type Browser, type Locator, type Page } from "playwright-core";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-default-apps",
  "--disable-extensions",
  // WebGL through ANGLE on SwiftShader, said explicitly (Chromium drops the silent fallback to it).
  "--use-angle=swiftshader",
  "--enable-unsafe-swiftshader",
];

/** Starts Chromium (with `extraArgs` besides CHROMIUM_ARGS); a missing browser is an error saying how to install it, never a skipped test. */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium is missing at ${CHROMIUM_PATH}: the browser tests need it (apt-get install -y chromium, or set CHROMIUM_PATH)`);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, ...extraArgs], timeout: 60_000 });
}

/**
 * Chromium for this file's tests, closed once they are done. Call it at the top of a test file, first
 * (without Chromium the file fails at once and starts nothing); inside a hook Bun runs the close too early.
 */
export async function chromiumForThisFile(): Promise<Browser> {
  const browser = await launchChromium();
  afterAll(() => browser.close());
  return browser;
}

/** Types the user into the page's login form (the app's, the graph view's or the authorization page's) and presses Log in. */
export async function logIn(page: Page, user: { username: string; password: string }): Promise<void> {
  await page.getByLabel("Username").fill(user.username);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Log in" }).click();
}

export interface PageWatch {
  /** Every URL the page asked for. */
  requests: string[];
  /** Console messages of type error, and uncaught exceptions. */
  errors: { text: string; url: string }[];
}

/** Records what a page requests and every error it logs. */
export function watchPage(page: Page): PageWatch {
  const watch: PageWatch = { requests: [], errors: [] };
  page.on("request", (request) => watch.requests.push(request.url()));
  page.on("console", (message) => {
    if (message.type() === "error") watch.errors.push({ text: message.text(), url: message.location().url });
  });
  page.on("pageerror", (error) => watch.errors.push({ text: `uncaught: ${error.message}`, url: "" }));
  return watch;
}

/**
 * How many distinct colours a screenshot of the element has, and the share of its pixels that are
 * not the background: the PNG is decoded by Chromium itself, in a blank page of the same browser.
 */
export async function pixelVariety(element: Locator, decoder: Page): Promise<{ colours: number; inked: number }> {
  const png = (await element.screenshot({ type: "png", animations: "disabled" })).toString("base64");
  return decoder.evaluate(async (data) => {
    const image = new Image();
    image.src = `data:image/png;base64,${data}`;
    await image.decode();
    const canvas = document.createElement("canvas");
    canvas.width = image.width;
    canvas.height = image.height;
    const context = canvas.getContext("2d")!;
    context.drawImage(image, 0, 0);
    const pixels = context.getImageData(0, 0, image.width, image.height).data;
    const colours = new Set<number>();
    let inked = 0;
    for (let index = 0; index < pixels.length; index += 4) {
      const [red, green, blue] = [pixels[index]!, pixels[index + 1]!, pixels[index + 2]!];
      colours.add((red << 16) | (green << 8) | blue);
      if (red < 245 || green < 245 || blue < 245) inked++;
    }
    return { colours: colours.size, inked: inked / (pixels.length / 4) };
  }, png);
}
