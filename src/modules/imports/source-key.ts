/**
 * What finds a single import's note again on re-import: the platform's post id when its canonical
 * URL carries one (a WeChat article's `__biz`+`mid`+`idx`, a Bilibili BV id, a Xiaohongshu note
 * id, a Douyin aweme id), so tracking parameters and signatures do not matter; else the URL.
 */
export function sourceKeyOf(platform: string, sourceUrl: string): string {
  const url = URL.parse(sourceUrl);
  if (!url) return `url:${sourceUrl}`;
  const id = postId(platform, url);
  if (id) return `${platform}:${id}`;
  url.hash = "";
  return `url:${url.href}`;
}

function postId(platform: string, url: URL): string | undefined {
  switch (platform) {
    case "wechat": {
      const [biz, mid, idx] = ["__biz", "mid", "idx"].map((name) => url.searchParams.get(name));
      if (biz && mid) return `${biz}/${mid}/${idx ?? "1"}`;
      return /^\/s\/([\w-]{10,})$/.exec(url.pathname)?.[1];
    }
    case "bilibili":
      return /\/video\/(BV[0-9A-Za-z]{10})/.exec(url.pathname)?.[1];
    case "xiaohongshu":
      return /\/(?:explore|discovery\/item)\/([0-9a-f]{24})/.exec(url.pathname)?.[1];
    case "douyin":
      return /\/(?:video|note|slides)\/(\d{8,})/.exec(url.pathname)?.[1];
  }
  return undefined;
}
