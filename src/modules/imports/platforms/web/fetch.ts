import { httpStatusError, ImportError } from "../../import-error";
import { documentFromPastedText, looksLikeHtml } from "../../pasted-text";
import type { Fetcher, FetchedPage, ImportedDocument } from "../types";
import { parseWebPage } from "./parse";

/** A desktop browser: some sites serve bots a stripped or blocked page. */
const BROWSER_HEADERS = {
  "User-Agent":
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5",
  "Accept-Language": "en-US,en;q=0.9,zh-CN;q=0.8,zh;q=0.7",
};

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);
const TEXT_TYPES = new Set(["text/plain", "text/markdown", "text/x-markdown"]);

const TYPE_NAMES: Record<string, string> = {
  "application/pdf": "a PDF document",
  "application/json": "JSON data",
  "application/zip": "a ZIP archive",
  "application/octet-stream": "a binary file",
};

/** The media type alone (`text/html; charset=…` → `text/html`), or "" when absent or malformed. */
function mediaType(contentType: string): string {
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  return /^[a-z0-9!#$&^_.+-]{1,64}\/[a-z0-9!#$&^_.+-]{1,64}$/.test(type) ? type : "";
}

function describeType(type: string): string {
  if (TYPE_NAMES[type]) return `${TYPE_NAMES[type]} (${type})`;
  if (type.startsWith("image/")) return `an image (${type})`;
  if (type.startsWith("video/")) return `a video (${type})`;
  if (type.startsWith("audio/")) return `audio (${type})`;
  return type ? `a file of type ${type}` : "a file of unknown type";
}

/** The page body as a document, by its content type. */
export function documentFromPage(page: FetchedPage): ImportedDocument {
  const type = mediaType(page.contentType);
  if (HTML_TYPES.has(type) || (!type && looksLikeHtml(page.body))) return parseWebPage(page.body, page.url);
  if (TEXT_TYPES.has(type)) return documentFromPastedText(page.body, page.url);
  // A PDF is read as an uploaded one would be: downloaded again, under the documents' own limit.
  if (type === "application/pdf") return { title: "", markdown: "", tags: [], sourceUrl: page.url, linkedDocument: { url: page.url, kind: "pdf" } };
  throw new ImportError(
    `This link serves ${describeType(type)}, not a web page, so there is no article text to import. Open it and paste its text as \`content\` instead.`,
    { permanent: true },
  );
}

/** Downloads any http(s) page through the injected fetcher and extracts its article. */
export async function fetchWebPage(url: string, fetcher: Fetcher, signal?: AbortSignal): Promise<ImportedDocument> {
  let target: URL;
  try {
    target = new URL(url.trim());
  } catch {
    throw new ImportError("This is not a valid link: it should start with http:// or https://.", { permanent: true });
  }
  if (target.protocol !== "http:" && target.protocol !== "https:") {
    throw new ImportError("Only http:// and https:// links can be imported.", { permanent: true });
  }

  let page: FetchedPage;
  try {
    page = await fetcher(target.href, { headers: BROWSER_HEADERS, signal });
  } catch (error) {
    if (error instanceof ImportError) throw error;
    throw new ImportError("Could not download the page (network error or timeout). Try again later.", {
      permanent: false,
      cause: error,
    });
  }

  const failure = httpStatusError(page.status, { site: "The site", item: "page" });
  if (failure) throw failure;
  const document = documentFromPage({ ...page, url: page.url || target.href });
  return { ...document, sourceUrl: document.sourceUrl ?? target.href };
}
