import { fetchSpaceVideos, spaceUrl } from "../imports/platforms/bilibili/space";
import type { Fetcher } from "../imports/platforms/types";
import type { ParsedFeed } from "./feed-entry";

/** An uploader's newest videos as a feed: each item's link is the video, imported through the Bilibili importer. */
export async function readBilibiliSpace(mid: string, fetcher: Fetcher, options: { sessdata?: string; apiBase?: string } = {}, signal?: AbortSignal): Promise<ParsedFeed> {
  const videos = await fetchSpaceVideos(mid, fetcher, options, signal);
  const author = videos.find((video) => video.author)?.author;
  return {
    kind: "bilibili",
    title: author ? `${author} · bilibili` : `bilibili space ${mid}`,
    siteUrl: spaceUrl(mid),
    entries: videos.map((video) => ({
      id: video.bvid,
      title: video.title,
      url: video.url,
      publishedAt: video.publishedAt,
      author: video.author,
      html: null,
      text: null,
      summary: video.description,
      enclosure: null,
      categories: [],
    })),
  };
}
