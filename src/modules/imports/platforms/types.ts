/** What every platform importer turns a page into; the task service makes a note of it. */
export interface ImportedDocument {
  title: string;
  /** Body as Markdown, without the source link (the task service appends it). */
  markdown: string;
  /** The page's own tags/hashtags, without the platform name (added by the task service). */
  tags: string[];
  /** Canonical URL of the content when known. */
  sourceUrl?: string;
  author?: string;
  /** ISO 8601 UTC. */
  publishedAt?: string;
  /** The video's sound, to transcribe when speech-to-text is set up (its words were not on the page). */
  media?: MediaRef;
  /** The link is a document (a PDF), not a page: the import reads it as an uploaded document, from this address. */
  linkedDocument?: { url: string; kind: "pdf" };
}

/** Where a video's (or an uploaded recording's) sound is, and what its transcript is kept by. */
export interface MediaRef {
  /**
   * `bilibili:<bvid>:<part>`, `douyin:<id>`, `audio:<user>:<sha256>`: one transcript per key, for
   * everyone; media named by pasted content is `pasted:<user>:<key>`, that user's alone.
   */
  key: string;
  /** A URL to download (with the platform's Referer), a Bilibili part whose stream is looked up then, or an upload's file. */
  source: { url: string; referer?: string; userAgent?: string } | { bilibili: { bvid: string; cid: number } } | { upload: string };
  /** Bilibili: the video's address, so each paragraph's time links to that second. */
  videoUrl?: string;
  part?: number;
  /** The note's line when speech-to-text is not set up. */
  withoutTranscript?: string;
}

/** A media download: where, and with which headers (Referer, User-Agent). */
export interface MediaLocation {
  url: string;
  headers: Record<string, string>;
}

export interface FetchedPage {
  /** The URL after redirects. */
  url: string;
  status: number;
  contentType: string;
  body: string;
}

export interface FetchOptions {
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * The only way importers reach the network. The real implementation (safe-fetch) enforces the
 * address rules, redirects, timeouts and size caps; tests may pass one bound to a fixture server.
 * It resolves for any HTTP status: importers decide what a 404 or 5xx means for their platform.
 */
export type Fetcher = (url: string, options?: FetchOptions) => Promise<FetchedPage>;

/** What a file download reports beside its body. */
export interface DownloadedFile {
  /** The URL after redirects. */
  url: string;
  status: number;
  contentType: string;
}

/**
 * Downloads a file (an image) under the fetcher's rules, handing its body to `consume` as a stream
 * (never held whole); resolves to what `consume` returns. A status other than 2xx is an ImportError.
 */
export type Downloader = <T>(
  url: string,
  options: FetchOptions,
  consume: (body: AsyncIterable<Uint8Array>, file: DownloadedFile) => Promise<T>,
) => Promise<T>;

/** One platform: read a URL through the fetcher, or parse pasted HTML/text with no network. */
export interface PlatformImporter {
  platform: "wechat" | "xiaohongshu" | "bilibili" | "douyin" | "web";
  /** Hosts (suffixes) this platform's URLs live on, for a helpful error when a URL is for another platform. Empty for `web`. */
  hosts: string[];
  fetchDocument(url: string, fetcher: Fetcher, signal?: AbortSignal): Promise<ImportedDocument>;
  /** `content` is the saved HTML source of the platform's page, or plain text / Markdown. */
  parsePasted(content: string, url?: string): ImportedDocument;
  /**
   * The `Referer` this platform's own pages send for their images (some CDNs answer others with a
   * placeholder), given the page's URL; undefined sends none.
   */
  imageReferer(pageUrl: string | undefined): string | undefined;
  /** Where a `{bilibili}` media source's audio stream is now (stream addresses expire, so it is asked at transcription time). */
  locateMedia?(source: MediaRef["source"], fetcher: Fetcher, signal?: AbortSignal): Promise<MediaLocation>;
}
