import type { Fetcher } from "../../src/modules/imports/platforms/types";

export interface SeenRequest {
  url: string;
  headers: Record<string, string>;
}

/**
 * A loopback server standing in for every host: `https://host/path` is served from
 * `http://127.0.0.1:<port>/host/path`, and the fetcher follows redirects across hosts itself,
 * reporting the final public URL as the real fetcher does.
 */
export function startPlatformServer(route: (url: URL, request: Request) => Response | undefined | Promise<Response | undefined>) {
  const seen: SeenRequest[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const local = new URL(request.url);
      const [, host = "", ...rest] = local.pathname.split("/");
      const url = new URL(`https://${host}/${rest.join("/")}${local.search}`);
      seen.push({ url: url.href, headers: Object.fromEntries(request.headers) });
      return (await route(url, request)) ?? new Response("Not Found", { status: 404 });
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  const fetcher: Fetcher = async (url, options) => {
    let current = new URL(url);
    for (let hop = 0; hop <= 5; hop += 1) {
      const local = current.origin === origin ? current : new URL(`/${current.host}${current.pathname}${current.search}`, origin);
      const response = await fetch(local, { headers: options?.headers, signal: options?.signal, redirect: "manual" });
      const location = response.headers.get("location");
      if (response.status >= 300 && response.status < 400 && location) {
        current = new URL(location, current);
        continue;
      }
      const body = await response.text();
      return { url: current.href, status: response.status, contentType: response.headers.get("content-type") ?? "", body };
    }
    throw new Error("too many redirects");
  };
  /** What `run` returned and the requests made while it ran, as public URLs. */
  async function requestsOf<T>(run: () => Promise<T>): Promise<{ result: T; requests: SeenRequest[] }> {
    const before = seen.length;
    const result = await run();
    return { result, requests: seen.slice(before) };
  }
  return { origin, fetcher, seen, requestsOf, stop: () => server.stop(true) };
}
