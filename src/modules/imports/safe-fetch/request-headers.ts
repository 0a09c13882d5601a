const DEFAULT_HEADERS: Record<string, string> = {
  "user-agent":
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  accept: "text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5",
  "accept-encoding": "gzip, deflate, br",
};

// Framing headers belong to this module: Host must match the URL we validated and pinned.
const CONTROLLED_HEADERS = new Set(["host", "connection", "content-length", "transfer-encoding"]);

/** A browser's headers, with the caller's on top save the framing ones. */
export function requestHeaders(callerHeaders: Record<string, string> | undefined): Record<string, string> {
  const merged = { ...DEFAULT_HEADERS };
  for (const [name, value] of Object.entries(callerHeaders ?? {})) {
    const key = name.toLowerCase();
    if (!CONTROLLED_HEADERS.has(key)) merged[key] = value;
  }
  return merged;
}
