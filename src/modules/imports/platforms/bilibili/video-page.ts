import { z } from "zod";
import { ImportError } from "../../import-error";
import { parseHtmlDocument } from "../../html-to-markdown";
import { readScriptAssignments } from "../page-scripts";
import type { ImportedDocument } from "../types";
import { blockedPage, errorForCode, VideoSchema } from "./api-answers";
import { videoDocument } from "./video-document";
import { videoRefFromUrl } from "./video-links";

const PageStateSchema = z.object({
  videoData: z.unknown().optional(),
  // Festival pages (/festival/…?bvid=) keep the video here instead.
  videoInfo: z.unknown().optional(),
  upData: z.object({ name: z.string().nullish(), mid: z.coerce.number().nullish() }).nullish(),
  tags: z.array(z.object({ tag_name: z.string() })).nullish(),
  error: z.object({ code: z.number().nullish(), trueCode: z.number().nullish() }).nullish(),
});

/**
 * Reads a saved Bilibili video page: `window.__INITIAL_STATE__` with `videoData` (or `videoInfo`),
 * `upData` and `tags`. Risk-control and error states become permanent ImportErrors.
 */
export function parseBilibiliVideoPage(html: string, url?: string): ImportedDocument {
  const scripts = readScriptAssignments(parseHtmlDocument(html), ["_riskdata_", "__INITIAL_STATE__"]);
  if (scripts.has("_riskdata_") || /["']v_voucher["']\s*:/.test(html)) throw blockedPage();

  const state = PageStateSchema.safeParse(scripts.get("__INITIAL_STATE__"));
  if (!state.success) throw noVideoOnPage();
  const { error } = state.data;
  // A deleted video's page says `{code: 404, trueCode: -404}`; trueCode is the API's code.
  const errorCode = error?.trueCode || (error?.code === 404 ? -404 : error?.code);
  if (errorCode && errorCode !== 200) throw errorForCode(errorCode);

  for (const candidate of [state.data.videoData, state.data.videoInfo]) {
    const video = VideoSchema.safeParse(candidate);
    if (!video.success) continue;
    return videoDocument({
      video: video.data,
      tags: (state.data.tags ?? []).map((tag) => tag.tag_name),
      uploader: state.data.upData ?? undefined,
      part: url ? videoRefFromUrl(url)?.part : undefined,
    });
  }
  throw noVideoOnPage();
}

function noVideoOnPage(): ImportError {
  return new ImportError(
    `This page carries no Bilibili video data (window.__INITIAL_STATE__ with videoData). Save the video page itself and paste its HTML source, or paste the text instead.`,
    { permanent: true },
  );
}
