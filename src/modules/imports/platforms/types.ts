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
}
