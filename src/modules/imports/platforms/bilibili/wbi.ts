import { createHash } from "node:crypto";

/** The order Bilibili's player shuffles the two key names into (its `getMixinKey`; yt-dlp `_get_wbi_key`). */
const MIXIN_ORDER = [
  46, 47, 18, 2, 53, 8, 23, 32, 15, 50, 10, 31, 58, 3, 45, 35, 27, 43, 5, 49, 33, 9, 42, 19, 29, 28, 14, 39, 12, 38, 41, 13, 37, 48, 7, 16, 24, 55, 40, 61,
  26, 17, 0, 1, 60, 51, 30, 4, 22, 25, 54, 21, 56, 59, 6, 63, 57, 62, 11, 36, 20, 34, 44, 52,
];

/** The signing key: the img and sub key names (64 characters) shuffled, first 32 kept. */
export function mixinKey(names: string): string {
  return MIXIN_ORDER.map((index) => names[index] ?? "").join("").slice(0, 32);
}

/**
 * Signs a query as WBI wants: `wts` added, parameters sorted by name, `!'()*` removed from values,
 * URL-encoded as Python's `urlencode` does (space as `+`), `w_rid` = md5(query + key).
 */
export function signWbi(params: Record<string, string>, key: string, wts: number): Record<string, string> {
  const all: Record<string, string> = { ...params, wts: String(wts) };
  const sorted = Object.keys(all)
    .sort()
    .map((name) => [name, all[name]!.replace(/[!'()*]/g, "")] as const);
  const query = sorted.map(([name, value]) => `${encode(name)}=${encode(value)}`).join("&");
  return { ...Object.fromEntries(sorted), w_rid: createHash("md5").update(query + key).digest("hex") };
}

function encode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, "+");
}
