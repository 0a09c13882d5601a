import type { Downloader } from "../platforms/types";
import { withDeadline } from "./deadline";
import { failure } from "./fetch-errors";
import { type SafeFetcherOptions, settingsOf } from "./options";
import { headerText, streamBody } from "./read-body";
import { followRedirects } from "./redirects";
import { requestHeaders } from "./request-headers";

/**
 * The same rules for files (images): the body is handed to `consume` as a stream, under the same
 * deadline and size cap, so it is never held whole. Any type is read (the caller judges the bytes);
 * a status other than 2xx is a failure.
 */
export function createSafeDownloader(options: SafeFetcherOptions): Downloader {
  const settings = settingsOf(options);
  return (url, fetchOptions, consume) => {
    // The consumer's own errors (a file it refuses) are its to word; only the transfer's are ours.
    let consumerError: { error: unknown } | undefined;
    const passThrough = (error: unknown) => consumerError?.error === error;
    return withDeadline(settings, url, fetchOptions, passThrough, async (signal) => {
      const { hop, response } = await followRedirects(settings, url, requestHeaders({ accept: "image/avif,image/webp,image/*,*/*;q=0.5", ...fetchOptions.headers }), signal);
      const status = response.statusCode ?? 0;
      if (status < 200 || status > 299) {
        response.destroy();
        throw failure(hop, `the server answered ${status}`, status !== 429 && status < 500);
      }
      const contentType = headerText(response.headers["content-type"]) ?? "";
      let transferFailed = false;
      const body = streamBody(settings, hop, response, signal);
      const watched = (async function* () {
        try {
          yield* body;
        } catch (error) {
          transferFailed = true;
          throw error;
        }
      })();
      try {
        return await consume(watched, { url: hop.url.href, status, contentType });
      } catch (error) {
        if (!transferFailed && !signal.aborted) consumerError = { error };
        throw error;
      } finally {
        response.destroy();
      }
    });
  };
}
