import type { IncomingMessage } from "node:http";
import type { FetchedPage, Fetcher, FetchOptions } from "../platforms/types";
import { withDeadline } from "./deadline";
import { decodeText } from "./decode-text";
import { failure, type Hop } from "./fetch-errors";
import { type SafeFetcherOptions, type Settings, settingsOf } from "./options";
import { headerText, readBody } from "./read-body";
import { followRedirects } from "./redirects";
import { requestHeaders } from "./request-headers";

/** The only way imports reach the network: public addresses only, pinned per hop, capped in time and size. */
export function createSafeFetcher(options: SafeFetcherOptions): Fetcher {
  const settings = settingsOf(options);
  return (url, fetchOptions) => fetchPage(settings, url, fetchOptions ?? {});
}

async function fetchPage(settings: Settings, url: string, options: FetchOptions): Promise<FetchedPage> {
  return withDeadline(settings, url, options, () => false, async (signal) => {
    const { hop, response } = await followRedirects(settings, url, requestHeaders(options.headers), signal);
    return readPage(settings, hop, response, signal);
  });
}

async function readPage(
  settings: Settings,
  hop: Hop,
  response: IncomingMessage,
  signal: AbortSignal,
): Promise<FetchedPage> {
  const status = response.statusCode ?? 0;
  const contentType = headerText(response.headers["content-type"]);
  const page = { url: hop.url.href, status, contentType: contentType ?? "" };
  const essence = mimeEssence(contentType);
  if (essence && status >= 200 && status <= 299 && settings.documentContentTypes.includes(essence)) {
    response.destroy();
    return { ...page, body: "" };
  }
  if (essence && !settings.allowedContentTypes.includes(essence)) {
    response.destroy();
    // An error page's type is irrelevant: the importer only needs its status.
    if (status < 200 || status > 299) return { ...page, body: "" };
    throw failure(hop, `unsupported content type ${essence}; imports read web pages, text, JSON and XML`, true);
  }
  const bytes = await readBody(settings, hop, response, signal);
  return { ...page, body: decodeText(bytes, contentType) };
}

function mimeEssence(contentType: string | undefined): string | null {
  const essence = contentType?.split(";")[0]?.trim().toLowerCase();
  if (!essence) return null;
  // The type is upstream text: only a well-formed one is ever repeated in an error.
  return /^[\w.+-]{1,64}\/[\w.+-]{1,64}$/.test(essence) ? essence : "(malformed)";
}
