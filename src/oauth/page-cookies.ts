/**
 * The authorization page's cookies, never readable by scripts. Over https each is a `__Host-`
 * cookie (Secure, for the whole origin, no Domain), which no other host, a sibling subdomain
 * included, can plant; `__Host-` needs Secure, so over plain http it is kept to /oauth instead.
 */
export function pageCookieName(name: string, publicUrl: string): string {
  return isHttps(publicUrl) ? `__Host-${name}` : name;
}

export function pageCookie(name: string, value: string, options: { publicUrl: string; maxAgeSeconds: number; sameSite: "Strict" | "Lax" }): string {
  const scope = isHttps(options.publicUrl) ? "; Path=/; Secure" : "; Path=/oauth";
  return `${pageCookieName(name, options.publicUrl)}=${value}${scope}; HttpOnly; SameSite=${options.sameSite}; Max-Age=${options.maxAgeSeconds}`;
}

/** A cookie's value in a request, or null. */
export function cookieValue(request: Request, name: string): string | null {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=") || null;
  }
  return null;
}

function isHttps(publicUrl: string): boolean {
  return publicUrl.startsWith("https:");
}
