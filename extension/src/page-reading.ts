import { ext } from "./browser-api";

// What the extension reads out of a tab. The functions given to executeScript run inside the page,
// serialised on their own: they may use nothing from this module but their arguments.

export interface PageCapture {
  html: string;
  url: string;
  title: string;
}

/** The page as the browser shows it: its DOM serialised once loaded, after its scripts ran. */
function capturePage(): Promise<PageCapture> {
  const read = () => ({ html: document.documentElement.outerHTML, url: location.href, title: document.title });
  if (document.readyState === "complete") return Promise.resolve(read());
  return new Promise((resolve) => window.addEventListener("load", () => resolve(read()), { once: true }));
}

function captureSelection(): { text: string; url: string; title: string } {
  return { text: window.getSelection()?.toString() ?? "", url: location.href, title: document.title };
}

/** The image's alternative text, when the page shows it with an `<img>`. */
function describeImage(src: string): { alt: string; url: string; title: string } {
  const image = Array.from(document.images).find((candidate) => candidate.currentSrc === src || candidate.src === src);
  return { alt: image?.alt ?? "", url: location.href, title: document.title };
}

/** The image fetched by the page itself (its cookies, its Referer), for images only it can read (same-origin, `blob:`). */
async function fetchImageInPage(src: string): Promise<{ type: string; base64: string } | { error: string }> {
  try {
    const response = await fetch(src, { credentials: "include" });
    if (!response.ok) return { error: `the image answered ${response.status}` };
    const bytes = new Uint8Array(await response.arrayBuffer());
    let binary = "";
    for (let start = 0; start < bytes.length; start += 0x8000) binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
    return { type: response.headers.get("content-type") ?? "", base64: btoa(binary) };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

function unreadable(error: unknown): Error {
  const reason = error instanceof Error ? error.message : String(error);
  return new Error(`This page cannot be read by the extension (${reason}); browser pages and the add-on stores are off limits`);
}

async function inMainFrame<Args extends unknown[], Result>(tabId: number, func: (...args: Args) => Result, args: Args): Promise<Awaited<Result>> {
  let results;
  try {
    results = await ext.scripting.executeScript({ target: { tabId }, func, args });
  } catch (error) {
    throw unreadable(error);
  }
  const result = results[0]?.result;
  if (result === undefined) throw unreadable("it gave no answer");
  return result;
}

export const readPage = (tabId: number) => inMainFrame(tabId, capturePage, []);
export const readImageContext = (tabId: number, src: string) => inMainFrame(tabId, describeImage, [src]);
export const fetchImageThroughPage = (tabId: number, src: string) => inMainFrame(tabId, fetchImageInPage, [src]);

/** The selected text (from whichever frame holds it), with the page's title and address. */
export async function readSelection(tabId: number): Promise<{ text: string; url: string; title: string }> {
  let results;
  try {
    results = await ext.scripting.executeScript({ target: { tabId, allFrames: true }, func: captureSelection, args: [] });
  } catch (error) {
    throw unreadable(error);
  }
  const top = results.find((frame) => frame.frameId === 0)?.result ?? results[0]?.result;
  const selected = results.find((frame) => frame.result && frame.result.text.trim() !== "")?.result;
  if (!top || !selected) throw new Error("Nothing is selected on this page: select some text, then save the selection");
  return { text: selected.text, url: top.url, title: top.title };
}
