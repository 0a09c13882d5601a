import { z } from "zod";
import { ImportError, PASTE_INSTEAD } from "../../import-error";

/** Every api.bilibili.com answer: `code` 0 on success, a negative or 6xxxx code otherwise. */
export const EnvelopeSchema = z.object({
  code: z.number(),
  message: z.string().nullish(),
  data: z.unknown().optional(),
});

/** `data` of /x/web-interface/view, also the page state's `videoData`. */
export const VideoSchema = z.object({
  bvid: z.string(),
  aid: z.number().nullish(),
  title: z.string(),
  desc: z.string().nullish(),
  pic: z.string().nullish(),
  pubdate: z.number().nullish(),
  tname: z.string().nullish(),
  cid: z.number().nullish(),
  owner: z.object({ mid: z.number().nullish(), name: z.string().nullish() }).nullish(),
  pages: z
    .array(z.object({ cid: z.number(), page: z.number(), part: z.string().nullish() }))
    .nullish(),
});
export type Video = z.infer<typeof VideoSchema>;

/** `data` of /x/web-interface/view/detail/tag. */
export const TagsSchema = z.array(z.object({ tag_name: z.string() }));

/** `data` of /x/player/wbi/v2; logged-out requests get an empty `subtitles` list. */
export const PlayerSchema = z.object({
  aid: z.number().nullish(),
  cid: z.number().nullish(),
  need_login_subtitle: z.boolean().nullish(),
  subtitle: z
    .object({
      subtitles: z
        .array(z.object({ lan: z.string(), lan_doc: z.string().nullish(), subtitle_url: z.string() }))
        .nullish(),
    })
    .nullish(),
});
export type SubtitleTrack = NonNullable<
  NonNullable<z.infer<typeof PlayerSchema>["subtitle"]>["subtitles"]
>[number];

/** `data` of /x/web-interface/nav: the WBI keys hide in the two image file names. */
export const NavSchema = z.object({
  data: z.object({ wbi_img: z.object({ img_url: z.string(), sub_url: z.string() }) }),
});

const StreamSchema = z.object({
  bandwidth: z.number().nullish(),
  baseUrl: z.string().nullish(),
  base_url: z.string().nullish(),
  backupUrl: z.array(z.string()).nullish(),
  backup_url: z.array(z.string()).nullish(),
});

/** `data` of /x/player/wbi/playurl: DASH streams (`fnval=16`), or MP4 pieces (`durl`) for old videos. */
export const PlayUrlSchema = z.object({
  timelength: z.number().nullish(),
  dash: z.object({ audio: z.array(StreamSchema).nullish() }).nullish(),
  durl: z.array(z.object({ url: z.string() })).nullish(),
});

/** A subtitle file (the `subtitle_url` body). */
export const SubtitleBodySchema = z.object({
  body: z.array(z.object({ from: z.number(), to: z.number(), content: z.string() })),
});
export type SubtitleLine = z.infer<typeof SubtitleBodySchema>["body"][number];

/** The ImportError for a Bilibili error code (API `code`, or the page state's `error.trueCode`). */
export function errorForCode(code: number): ImportError {
  switch (code) {
    case -404:
      return new ImportError(
        "Bilibili says this video does not exist (啥都木有): it was deleted, is blocked in this region, or the link is wrong.",
        { permanent: true },
      );
    case 62002:
      return new ImportError(
        "This Bilibili video is not visible (稿件不可见): it was taken down or hidden by its uploader.",
        { permanent: true },
      );
    case 62004:
      return new ImportError(
        "This Bilibili video is still under review (稿件审核中); import it again once it is published.",
        { permanent: true },
      );
    case 62012:
      return new ImportError(
        "This Bilibili video is visible to its uploader only (仅UP主自己可见), so it cannot be imported.",
        { permanent: true },
      );
    case -403:
      return new ImportError(
        `Bilibili shows this video to logged-in users only. ${PASTE_INSTEAD}`,
        { permanent: true },
      );
    case -412:
    case -799:
      return rateLimited();
    case -352:
      return new ImportError(
        `Bilibili asked for a signed request, which the importer cannot make. ${PASTE_INSTEAD}`,
        { permanent: true },
      );
    case -400:
      return new ImportError("Bilibili rejected the video id as invalid: check the link.", {
        permanent: true,
      });
    case -500:
    case -503:
    case -504:
      return new ImportError("Bilibili had a server error; the import will be retried.", {
        permanent: false,
      });
    default:
      return new ImportError(`Bilibili refused to show this video (error ${code}).`, { permanent: true });
  }
}

export function rateLimited(): ImportError {
  return new ImportError(
    "Bilibili is rate-limiting requests from this server (risk control); the import will be retried later.",
    { permanent: false },
  );
}

export function blockedPage(): ImportError {
  return new ImportError(
    `Bilibili blocked the request as automated (risk control page with a verification voucher). ${PASTE_INSTEAD}`,
    { permanent: true },
  );
}
