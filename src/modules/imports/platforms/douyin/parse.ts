import { z } from "zod";
import { ImportError, PASTE_INSTEAD } from "../../import-error";
import { parseHtmlDocument } from "../../html-to-markdown";
import { readScriptAssignments } from "../page-scripts";
import type { ImportedDocument } from "../types";
import { type DouyinPost, postDocument } from "./post-document";
import { postRefFromUrl } from "./post-links";

const UrlListSchema = z.object({ url_list: z.array(z.string()).nullish() }).nullish();

/** `videoInfoRes.item_list[0]` of the share page: the snake_case `aweme_detail` schema. */
const ShareItemSchema = z.object({
  aweme_id: z.string().nullish(),
  desc: z.string().nullish(),
  create_time: z.number().nullish(),
  author: z.object({ nickname: z.string().nullish() }).nullish(),
  text_extra: z.array(z.object({ hashtag_name: z.string().nullish() })).nullish(),
  images: z.array(UrlListSchema).nullish(),
  video: z
    .object({
      cover: UrlListSchema,
      origin_cover: UrlListSchema,
      play_addr: UrlListSchema,
      duration: z.number().nullish(),
      bit_rate: z.array(z.object({ bit_rate: z.number().nullish(), play_addr: UrlListSchema }).nullish()).nullish(),
    })
    .nullish(),
  // The post's music: often a song laid over the video, not what is said in it; never transcribed.
  music: z.unknown().optional(),
});

const VideoInfoResSchema = z.object({
  item_list: z.array(z.unknown()).nullish(),
  filter_list: z
    .array(z.object({ filter_reason: z.string().nullish(), detail_msg: z.string().nullish() }))
    .nullish(),
});

const RouterDataSchema = z.object({
  loaderData: z.record(z.string(), z.object({ videoInfoRes: z.unknown().optional() }).nullable()),
});

/** douyin.com's RENDER_DATA writes the same post in camelCase; a cover is a URL or a URL list. */
const PictureSchema = z.union([z.string(), z.object({ urlList: z.array(z.string()).nullish() })]).nullish();
const RenderDetailSchema = z.object({
  awemeId: z.string().nullish(),
  desc: z.string().nullish(),
  createTime: z.number().nullish(),
  authorInfo: z.object({ nickname: z.string().nullish() }).nullish(),
  textExtra: z.array(z.object({ hashtagName: z.string().nullish() })).nullish(),
  images: z.array(z.object({ urlList: z.array(z.string()).nullish() })).nullish(),
  video: z.object({ cover: PictureSchema, originCover: PictureSchema }).nullish(),
});

/**
 * Reads a Douyin page: the iesdouyin.com share page (`window._ROUTER_DATA`) or a saved
 * douyin.com video page (`<script id="RENDER_DATA">`). A filtered (deleted, private) post and a
 * page with neither become permanent ImportErrors.
 */
export function parseDouyinPage(html: string, url?: string): ImportedDocument {
  const id = url ? postRefFromUrl(url)?.id : undefined;
  const document = parseHtmlDocument(html);
  const routerData = readScriptAssignments(document, ["_ROUTER_DATA"]).get("_ROUTER_DATA");
  const post = postFromRouterData(routerData, id) ?? postFromRenderData(document);
  if (!post) {
    throw new ImportError(
      `Douyin did not include the post in this page: it needs a signed request for this link, which the importer cannot make. ${PASTE_INSTEAD}`,
      { permanent: true },
    );
  }
  return postDocument(post);
}

/**
 * The post's loader: real pages key it by the literal route id (`video_(id)/page`, the characters
 * `(id)`); older saves put the post's number in the parentheses.
 */
const POST_ROUTE = /^(?:video|note|slides|story)_\((?:id|\d+)\)\/page$/;

function postFromRouterData(routerData: unknown, id: string | undefined): DouyinPost | undefined {
  const parsed = RouterDataSchema.safeParse(routerData);
  if (!parsed.success) return undefined;
  const loaders = parsed.data.loaderData;
  const keys = [
    ...(id ? [`video_(${id})/page`, `note_(${id})/page`] : []),
    ...Object.keys(loaders).filter((key) => POST_ROUTE.test(key)),
  ];
  const key = keys.find((candidate) => loaders[candidate]?.videoInfoRes !== undefined);
  if (!key) return undefined;
  const info = VideoInfoResSchema.safeParse(loaders[key]?.videoInfoRes);
  if (!info.success) return undefined;

  const first = info.data.item_list?.[0];
  const filtered = info.data.filter_list?.[0];
  if (filtered || first == null) throw unavailable(filtered);
  const item = ShareItemSchema.safeParse(first);
  if (!item.success) return undefined;
  const data = item.data;
  const cover = data.video?.cover?.url_list?.[0] ?? data.video?.origin_cover?.url_list?.[0];
  return {
    id: data.aweme_id ?? id,
    desc: data.desc ?? "",
    author: data.author?.nickname || undefined,
    createTime: data.create_time ?? undefined,
    hashtags: (data.text_extra ?? []).map((extra) => extra.hashtag_name ?? ""),
    images: (data.images ?? []).flatMap((image) => image?.url_list?.slice(0, 1) ?? []),
    cover: cover ? absoluteUrl(cover) : undefined,
    playUrl: data.images?.length ? undefined : soundtrackUrl(data.video),
  };
}

/**
 * The video's own soundtrack: its smallest `bit_rate` rendition, else `play_addr`, without the
 * watermark (`playwm` → `play`, as parse-video does). Never `music.play_url`.
 */
function soundtrackUrl(video: z.infer<typeof ShareItemSchema>["video"]): string | undefined {
  const renditions = (video?.bit_rate ?? [])
    .filter((rendition) => rendition?.play_addr?.url_list?.length)
    .sort((a, b) => (a?.bit_rate ?? Infinity) - (b?.bit_rate ?? Infinity));
  const url = renditions[0]?.play_addr?.url_list?.[0] ?? video?.play_addr?.url_list?.[0];
  return url ? absoluteUrl(url).replace("/playwm/", "/play/") : undefined;
}

function postFromRenderData(document: Document): DouyinPost | undefined {
  const script = document.querySelector("script#RENDER_DATA");
  if (!script) return undefined;
  let renderData: unknown;
  try {
    renderData = JSON.parse(decodeURIComponent((script.textContent ?? "").trim()));
  } catch {
    return undefined;
  }
  if (typeof renderData !== "object" || renderData === null) return undefined;
  // The top-level key holding the post changes between deployments ("C_14", a hash…).
  for (const value of Object.values(renderData)) {
    const detail = RenderDetailSchema.safeParse(
      (value as { aweme?: { detail?: unknown } } | null)?.aweme?.detail,
    );
    if (!detail.success || !(detail.data.awemeId || detail.data.desc)) continue;
    const data = detail.data;
    const cover = pictureUrl(data.video?.cover) ?? pictureUrl(data.video?.originCover);
    return {
      id: data.awemeId ?? undefined,
      desc: data.desc ?? "",
      author: data.authorInfo?.nickname || undefined,
      createTime: data.createTime ?? undefined,
      hashtags: (data.textExtra ?? []).map((extra) => extra.hashtagName ?? ""),
      images: (data.images ?? []).flatMap((image) => image.urlList?.slice(0, 1).map(absoluteUrl) ?? []),
      cover,
    };
  }
  return undefined;
}

function pictureUrl(picture: z.infer<typeof PictureSchema>): string | undefined {
  const url = typeof picture === "string" ? picture : picture?.urlList?.[0];
  return url ? absoluteUrl(url) : undefined;
}

function absoluteUrl(url: string): string {
  return url.startsWith("//") ? `https:${url}` : url;
}

function unavailable(filter: { filter_reason?: string | null; detail_msg?: string | null } | undefined): ImportError {
  const reason = filter?.detail_msg || filter?.filter_reason;
  return new ImportError(
    `This Douyin post is unavailable${reason ? ` (${reason})` : ""}: it was deleted or made private, so it cannot be imported.`,
    { permanent: true },
  );
}
