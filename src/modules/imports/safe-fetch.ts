import dns, { type LookupAddress } from "node:dns";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import zlib from "node:zlib";
import { type AddressClass, classifyAddress, ipLiteralOf } from "./address-policy";
import { ImportError } from "./import-error";
import type { Downloader, FetchedPage, Fetcher, FetchOptions } from "./platforms/types";

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every A/AAAA record of a host name. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface SafeFetcherOptions {
  /** The operator setting IMPORT_ALLOW_PRIVATE_NETWORKS: lifts the address and port rules only. */
  allowPrivateNetworks: boolean;
  /** One deadline across all redirects and the body. */
  timeoutMs?: number;
  /** Cap on the body as received and after decompression. */
  maxBodyBytes?: number;
  maxRedirects?: number;
  resolve?: Resolver;
  /** MIME essences (`type/subtype`) accepted for 2xx pages. */
  allowedContentTypes?: string[];
  /** Explicit ports allowed while the address rule is on (default ports are always allowed). */
  allowedPorts?: number[];
  /** Test seam: lets a loopback fixture stand in for a public host. */
  classifyAddress?: (address: string) => AddressClass;
  /** Test seam: sees every address a socket is about to connect to, and may throw to stop it. */
  beforeConnect?: (address: string) => void;
}

export const DEFAULT_ALLOWED_CONTENT_TYPES = [
  "text/html",
  "application/xhtml+xml",
  "text/plain",
  "text/markdown",
  "application/json",
  "text/json",
  "application/xml",
  "text/xml",
];

const MIB = 1024 * 1024;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

const DEFAULT_HEADERS: Record<string, string> = {
  "user-agent":
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  accept: "text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5",
  "accept-encoding": "gzip, deflate, br",
};

// Framing headers belong to this module: Host must match the URL we validated and pinned.
const CONTROLLED_HEADERS = new Set(["host", "connection", "content-length", "transfer-encoding"]);

// Credentials a caller meant for one site must not follow a redirect to another.
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

const defaultResolver: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true });

interface Settings {
  allowPrivateNetworks: boolean;
  timeoutMs: number;
  maxBodyBytes: number;
  maxRedirects: number;
  resolve: Resolver;
  allowedContentTypes: string[];
  allowedPorts: number[];
  classifyAddress: (address: string) => AddressClass;
  beforeConnect: (address: string) => void;
}

/** The only way imports reach the network: public addresses only, pinned per hop, capped in time and size. */
export function createSafeFetcher(options: SafeFetcherOptions): Fetcher {
  const settings = settingsOf(options);
  return (url, fetchOptions) => fetchPage(settings, url, fetchOptions ?? {});
}

/**
 * The same rules for files (images): the body is handed to `consume` as a stream, under the same
 * deadline and size cap, so it is never held whole. Any type is read (the caller judges the bytes);
 * a status other than 2xx is a failure.
 */
export function createSafeDownloader(options: SafeFetcherOptions): Downloader {
  const settings = settingsOf(options);
  return (url, fetchOptions, consume) => {
    // The consumer's own errors (a file it refuses) are its to word; only the transfer's are ours.
    let consumerError: { error: unknown } | undefined;
    const passThrough = (error: unknown) => consumerError?.error === error;
    return withDeadline(settings, url, fetchOptions, passThrough, async (signal) => {
      const { hop, response } = await followRedirects(settings, url, requestHeaders({ accept: "image/avif,image/webp,image/*,*/*;q=0.5", ...fetchOptions.headers }), signal);
      const status = response.statusCode ?? 0;
      if (status < 200 || status > 299) {
        response.destroy();
        throw failure(hop, `the server answered ${status}`, status !== 429 && status < 500);
      }
      const contentType = headerText(response.headers["content-type"]) ?? "";
      let transferFailed = false;
      const body = streamBody(settings, hop, response, signal);
      const watched = (async function* () {
        try {
          yield* body;
        } catch (error) {
          transferFailed = true;
          throw error;
        }
      })();
      try {
        return await consume(watched, { url: hop.url.href, status, contentType });
      } catch (error) {
        if (!transferFailed && !signal.aborted) consumerError = { error };
        throw error;
      } finally {
        response.destroy();
      }
    });
  };
}

/** What a POST came back with; its body is not read. */
export interface PostOutcome {
  status: number;
}

export type Poster = (
  url: string,
  request: { headers: Record<string, string>; body: string; signal?: AbortSignal; connections?: KeptConnections },
) => Promise<PostOutcome>;

/** A short answer body is read to its end so the connection can be used again; a longer one closes it. */
const KEPT_BODY_MAX_BYTES = 64 * 1024;

/**
 * Connections kept open between POSTs (HTTP keep-alive), for a run of deliveries to one receiver:
 * a new connection per request cost about twice the CPU of reusing one. The address rules still
 * hold at each request: it resolves and checks the host again, and a kept connection to an
 * address that is not among the ones just checked is closed rather than used. `close()` ends them.
 */
export interface KeptConnections {
  close(): void;
}

interface Keeper extends KeptConnections {
  agent(secure: boolean): http.Agent;
  /** Closes idle connections to `host:port` whose peer is not one of `addresses`. */
  dropOthers(host: string, port: string | number, addresses: readonly string[]): void;
}

export function keepConnections(): KeptConnections {
  const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 1 }), https: new https.Agent({ keepAlive: true, maxSockets: 1 }) };
  const keeper: Keeper = {
    agent: (secure) => (secure ? agents.https : agents.http),
    dropOthers(host, port, addresses) {
      for (const agent of [agents.http, agents.https]) {
        for (const [name, sockets] of Object.entries(agent.freeSockets)) {
          if (!name.startsWith(`${host}:${port}:`)) continue;
          for (const socket of sockets ?? []) {
            const peer = socket.remoteAddress?.replace(/^::ffff:/, "");
            if (!peer || !addresses.includes(peer)) socket.destroy();
          }
        }
      }
    },
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
  return keeper;
}

/**
 * One JSON POST under the same address rules (checked after DNS, the socket pinned to the checked
 * addresses) and one deadline; a redirect is not followed (a 3xx is the answer). For webhooks: the
 * errors are ImportErrors whose `reason` says in a few words why there was no answer. With
 * `connections`, the connection is kept for the next POST (see keepConnections).
 */
export function createSafePoster(options: SafeFetcherOptions): Poster {
  const settings = settingsOf(options);
  // Bun's fetch sends through an HTTP_PROXY from the environment, which node:http (and so every
  // other request of ours) does not: with one set, plain HTTP stays on node:http too.
  const fetchDirect = !process.env.HTTP_PROXY && !process.env.http_proxy;
  return (url, request) =>
    withDeadline(settings, url, { signal: request.signal }, () => false, async (signal) => {
      const hop: Hop = { url: parseUrl(url), label: displayUrl(url) };
      checkTarget(settings, hop);
      const headers = { "content-type": "application/json", ...request.headers };
      const keeper = request.connections as Keeper | undefined;
      if (keeper && fetchDirect && hop.url.protocol === "http:") return postPinned(settings, hop, headers, request.body, signal);
      const response = await send(settings, hop, headers, signal, { method: "POST", body: request.body, keeper });
      if (keeper) await drainShortBody(response, signal);
      else response.destroy();
      return { status: response.statusCode ?? 0 };
    });
}

/**
 * A plain-HTTP POST of a kept-connections run through the runtime's own fetch, addressed to the
 * address just resolved and checked (so the connection it opens or reuses is to that address, and
 * the host goes in the Host header): a quarter of the CPU of node:http's client for the same
 * request (measured), and its pool keeps the connection. HTTPS stays on node:http (send), whose
 * agent keys connections by host name and checks the certificate against it.
 */
async function postPinned(settings: Settings, hop: Hop, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<PostOutcome> {
  const { url } = hop;
  const literal = ipLiteralOf(url.hostname);
  const [first] = await resolveChecked(settings, hop, literal ?? url.hostname);
  const host = first!.family === 6 ? `[${first!.address}]` : first!.address;
  const response = await fetch(`http://${host}:${url.port || 80}${url.pathname}${url.search}`, {
    method: "POST",
    headers: { ...headers, host: url.host },
    body,
    redirect: "manual",
    signal,
    keepalive: true,
  });
  // Read to its end (a short body of known length) so the connection goes back to the pool; any other is dropped with it.
  const length = response.headers.get("content-length");
  if (length !== null && Number(length) <= KEPT_BODY_MAX_BYTES) await response.arrayBuffer().catch(() => undefined);
  else await response.body?.cancel().catch(() => undefined);
  return { status: response.status };
}

/** Reads and drops a short answer body, so its connection goes back to be reused; never fails (the status is the answer). */
function drainShortBody(response: IncomingMessage, signal: AbortSignal): Promise<void> {
  if (Number(response.headers["content-length"]) > KEPT_BODY_MAX_BYTES) {
    response.destroy();
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    let bytes = 0;
    const done = () => {
      signal.removeEventListener("abort", cut);
      resolve();
    };
    const cut = () => {
      response.destroy();
      done();
    };
    signal.addEventListener("abort", cut, { once: true });
    response.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > KEPT_BODY_MAX_BYTES) cut();
    });
    response.once("end", done);
    response.once("error", done);
    response.once("close", done);
  });
}

function settingsOf(options: SafeFetcherOptions): Settings {
  return {
    allowPrivateNetworks: options.allowPrivateNetworks,
    timeoutMs: options.timeoutMs ?? 15_000,
    maxBodyBytes: options.maxBodyBytes ?? 10 * MIB,
    maxRedirects: options.maxRedirects ?? 5,
    resolve: options.resolve ?? defaultResolver,
    allowedContentTypes: (options.allowedContentTypes ?? DEFAULT_ALLOWED_CONTENT_TYPES).map((type) => type.toLowerCase()),
    allowedPorts: options.allowedPorts ?? [80, 443, 8080, 8443],
    classifyAddress: options.classifyAddress ?? classifyAddress,
    beforeConnect: options.beforeConnect ?? (() => {}),
  };
}

async function fetchPage(settings: Settings, url: string, options: FetchOptions): Promise<FetchedPage> {
  return withDeadline(settings, url, options, () => false, async (signal) => {
    const { hop, response } = await followRedirects(settings, url, requestHeaders(options.headers), signal);
    return readPage(settings, hop, response, signal);
  });
}

/** Runs `work` under one deadline (all redirects and the body) and the caller's cancel signal, in our own error words. */
async function withDeadline<T>(
  settings: Settings,
  url: string,
  options: FetchOptions,
  passThrough: (error: unknown) => boolean,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const shown = displayUrl(url);
  const deadline = new AbortController();
  const timer = setTimeout(() => {
    const seconds = settings.timeoutMs / 1000;
    deadline.abort(new ImportError(`Could not fetch ${shown}: timed out after ${seconds} s`, { permanent: false, reason: `timeout after ${seconds} s` }));
  }, settings.timeoutMs);
  const cancel = () =>
    deadline.abort(
      new ImportError(`Could not fetch ${shown}: the import was cancelled`, {
        permanent: false,
        cause: options.signal?.reason,
      }),
    );
  if (options.signal?.aborted) cancel();
  else options.signal?.addEventListener("abort", cancel, { once: true });
  try {
    return await work(deadline.signal);
  } catch (error) {
    if (error instanceof ImportError || passThrough(error)) throw error;
    // Destroying a socket surfaces as a generic error; the abort reason says what really happened.
    if (deadline.signal.aborted) throw deadline.signal.reason;
    throw connectionFailure(shown, error);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", cancel);
  }
}

async function followRedirects(
  settings: Settings,
  startUrl: string,
  startHeaders: Record<string, string>,
  signal: AbortSignal,
): Promise<{ hop: Hop; response: IncomingMessage }> {
  const start = parseUrl(startUrl);
  let hop: Hop = { url: start, label: displayUrl(start) };
  let headers = startHeaders;
  checkTarget(settings, hop);
  for (let redirects = 0; ; redirects++) {
    const response = await send(settings, hop, headers, signal);
    const location = response.headers.location;
    if (!REDIRECT_STATUSES.has(response.statusCode ?? 0) || !location) {
      return { hop, response };
    }
    response.destroy();
    if (redirects >= settings.maxRedirects) {
      throw new ImportError(
        `Could not fetch ${displayUrl(start)}: too many redirects (more than ${settings.maxRedirects})`,
        { permanent: true },
      );
    }
    const next = resolveLocation(location, hop);
    hop = { url: next, label: `${displayUrl(next)} (redirected from ${displayUrl(start)})` };
    checkTarget(settings, hop);
    if (next.origin !== start.origin) headers = withoutCredentials(headers);
  }
}

/** One request in a redirect chain; `label` names it in errors. */
interface Hop {
  url: URL;
  label: string;
}

function parseUrl(url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw new ImportError(`Refused to fetch ${displayUrl(url)}: it is not a valid URL`, { permanent: true });
  }
}

function resolveLocation(location: string, hop: Hop): URL {
  try {
    return new URL(location, hop.url);
  } catch {
    throw new ImportError(`Could not fetch ${hop.label}: it redirects to an invalid URL`, { permanent: true });
  }
}

/** Scheme, userinfo, IP-literal and port rules, checked before any socket is opened. */
function checkTarget(settings: Settings, hop: Hop): void {
  const { url } = hop;
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw refusal(hop, "only http and https URLs can be imported");
  }
  if (url.username || url.password) {
    throw refusal(hop, "URLs with a user name or password are not allowed");
  }
  const literal = ipLiteralOf(url.hostname);
  if (literal) checkAddress(settings, hop, literal, null);
  if (!settings.allowPrivateNetworks && url.port !== "" && !settings.allowedPorts.includes(Number(url.port))) {
    const ports = settings.allowedPorts.join(", ");
    throw refusal(hop, `port ${url.port} is not allowed; imports use the default ports or ${ports}`);
  }
}

function checkAddress(settings: Settings, hop: Hop, address: string, hostname: string | null): void {
  if (settings.allowPrivateNetworks) return;
  const verdict = settings.classifyAddress(address);
  if (verdict.public) return;
  const what = hostname
    ? `${hostname} resolves to ${address}, ${verdict.description}`
    : `${address} is ${verdict.description}`;
  throw refusal(hop, `${what}; imports only reach public addresses`, `blocked address ${address}`);
}

function refusal(hop: Hop, reason: string, shortReason = reason): ImportError {
  return new ImportError(`Refused to fetch ${hop.label}: ${reason}`, { permanent: true, reason: shortReason });
}

function failure(hop: Hop, reason: string, permanent: boolean, cause?: unknown): ImportError {
  return new ImportError(`Could not fetch ${hop.label}: ${reason}`, { permanent, cause, reason });
}

async function send(
  settings: Settings,
  hop: Hop,
  headers: Record<string, string>,
  signal: AbortSignal,
  { method, body, keeper }: { method: "GET" | "POST"; body?: string; keeper?: Keeper } = { method: "GET" },
): Promise<IncomingMessage> {
  if (signal.aborted) throw signal.reason;
  const { url } = hop;
  const literal = ipLiteralOf(url.hostname);
  const secure = url.protocol === "https:";
  const port = url.port || (secure ? 443 : 80);
  // A kept connection skips the socket's own lookup, so the addresses are checked here, at every request.
  let checked: LookupAddress[] | undefined;
  if (keeper) {
    checked = await resolveChecked(settings, hop, literal ?? url.hostname);
    keeper.dropOthers(literal ?? url.hostname, port, checked.map(({ address }) => address));
  } else if (literal) settings.beforeConnect(literal);
  return new Promise((resolve, reject) => {
    // The lookup's own error wins over whatever error the client wraps it in.
    let lookupError: unknown;
    const request = (secure ? https : http).request(
      {
        host: literal ?? url.hostname,
        port,
        path: url.pathname + url.search,
        method,
        headers: { ...headers, host: url.host, ...(body !== undefined ? { "content-length": String(Buffer.byteLength(body)) } : {}) },
        agent: keeper ? keeper.agent(secure) : false,
        ...(secure && !literal ? { servername: url.hostname } : {}),
        lookup: checked ? checkedLookup(checked) : pinnedLookup(settings, hop, (error) => (lookupError = error)),
      },
      (response) => {
        signal.removeEventListener("abort", onAbort);
        resolve(response);
      },
    );
    const onAbort = () => request.destroy(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    request.on("error", (error) => {
      signal.removeEventListener("abort", onAbort);
      reject(lookupError ?? error);
    });
    request.end(body);
  });
}

/** Hands a new socket the addresses checked for this request. */
function checkedLookup(addresses: LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const first = addresses[0]!;
    if (options.all) callback(null, addresses);
    else callback(null, first.address, first.family);
  };
}

/** Resolves, refuses if any record is non-public, and hands the socket only the checked addresses (no second lookup to rebind). */
function pinnedLookup(settings: Settings, hop: Hop, onError: (error: unknown) => void): LookupFunction {
  return (hostname, options, callback) => {
    resolveChecked(settings, hop, hostname).then(
      (addresses) => {
        const first = addresses[0]!;
        if (options.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (error) => {
        onError(error);
        callback(error, "");
      },
    );
  };
}

async function resolveChecked(settings: Settings, hop: Hop, hostname: string): Promise<LookupAddress[]> {
  const literal = ipLiteralOf(hostname);
  const answers = literal ? [{ address: literal, family: 0 }] : await resolveHost(settings, hop, hostname);
  if (answers.length === 0) throw failure(hop, `${hostname} does not resolve to any address`, true);
  for (const answer of answers) checkAddress(settings, hop, answer.address, literal ? null : hostname);
  const pinned = answers.map(({ address }) => ({ address, family: address.includes(":") ? 6 : 4 }));
  for (const { address } of pinned) settings.beforeConnect(address);
  // IPv4 first: many hosts publish AAAA records this machine cannot route.
  return pinned.sort((a, b) => a.family - b.family);
}

async function resolveHost(settings: Settings, hop: Hop, hostname: string): Promise<ResolvedAddress[]> {
  try {
    return await settings.resolve(hostname);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOTFOUND" || code === "ENODATA" || code === "EAI_NONAME") {
      throw failure(hop, `the host name ${hostname} does not exist`, true, error);
    }
    throw failure(hop, `the host name ${hostname} could not be resolved right now`, false, error);
  }
}

async function readPage(
  settings: Settings,
  hop: Hop,
  response: IncomingMessage,
  signal: AbortSignal,
): Promise<FetchedPage> {
  const status = response.statusCode ?? 0;
  const contentType = headerText(response.headers["content-type"]);
  const page = { url: hop.url.href, status, contentType: contentType ?? "" };
  const essence = mimeEssence(contentType);
  if (essence && !settings.allowedContentTypes.includes(essence)) {
    response.destroy();
    // An error page's type is irrelevant: the importer only needs its status.
    if (status < 200 || status > 299) return { ...page, body: "" };
    throw failure(hop, `unsupported content type ${essence}; imports read web pages, text, JSON and XML`, true);
  }
  const bytes = await readBody(settings, hop, response, signal);
  return { ...page, body: decodeText(bytes, contentType) };
}

/** Reads the whole (page) body, under the cap. */
async function readBody(settings: Settings, hop: Hop, response: IncomingMessage, signal: AbortSignal): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of streamBody(settings, hop, response, signal)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Streams the body, stopping as soon as the received or decompressed size passes the cap. */
async function* streamBody(
  settings: Settings,
  hop: Hop,
  response: IncomingMessage,
  signal: AbortSignal,
): AsyncGenerator<Buffer> {
  const limit = settings.maxBodyBytes;
  const tooLarge = () => failure(hop, `the page is larger than ${formatSize(limit)}`, true);
  if (Number(response.headers["content-length"]) > limit) {
    response.destroy();
    throw tooLarge();
  }
  const decompressor = decompressorFor(hop, response);
  const destroyAll = (error?: unknown) => {
    response.destroy(error as Error | undefined);
    decompressor?.destroy(error as Error | undefined);
  };
  const onAbort = () => destroyAll(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  if (decompressor) {
    let received = 0;
    response.on("data", (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) destroyAll(tooLarge());
    });
    response.on("error", (error) => decompressor.destroy(error));
    response.pipe(decompressor);
  }
  try {
    let size = 0;
    for await (const chunk of decompressor ?? response) {
      size += (chunk as Buffer).length;
      if (size > limit) throw tooLarge();
      yield chunk as Buffer;
    }
  } catch (error) {
    if (errorCode(error)?.startsWith("Z_") || errorCode(error)?.startsWith("ERR_BROTLI")) {
      throw failure(hop, "the page's compressed body is corrupt", true, error);
    }
    throw error;
  } finally {
    signal.removeEventListener("abort", onAbort);
    destroyAll();
  }
}

function decompressorFor(hop: Hop, response: IncomingMessage) {
  const encoding = (headerText(response.headers["content-encoding"]) ?? "").trim().toLowerCase();
  // Browsers accept truncated compressed bodies; so do we.
  const lenient = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
  switch (encoding) {
    case "":
    case "identity":
      return null;
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip(lenient);
    case "deflate":
      return zlib.createInflate(lenient);
    case "br":
      return zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
    default:
      response.destroy();
      throw failure(hop, "the server used an unsupported content encoding", true);
  }
}

/** Decodes with the BOM, then the Content-Type charset, then a `<meta>`/XML declaration in the first 2 KiB, then UTF-8. */
export function decodeText(bytes: Uint8Array, contentType?: string): string {
  const label = bomCharset(bytes) ?? charsetParameter(contentType) ?? sniffCharset(bytes) ?? "utf-8";
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label);
  } catch {
    decoder = new TextDecoder("utf-8");
  }
  return decoder.decode(bytes);
}

function bomCharset(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  return null;
}

function charsetParameter(contentType: string | undefined): string | null {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "");
  return match?.[1] ?? null;
}

function sniffCharset(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.subarray(0, 2048)).toString("latin1");
  const declared =
    /<meta[^>]*?charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1] ??
    /^\s*<\?xml[^>]*?encoding\s*=\s*["']([\w.:-]+)/i.exec(head)?.[1];
  if (!declared) return null;
  // A page that could declare itself in ASCII is not UTF-16 (WHATWG prescan rule).
  return declared.toLowerCase().startsWith("utf-16") ? "utf-8" : declared;
}

function mimeEssence(contentType: string | undefined): string | null {
  const essence = contentType?.split(";")[0]?.trim().toLowerCase();
  if (!essence) return null;
  // The type is upstream text: only a well-formed one is ever repeated in an error.
  return /^[\w.+-]{1,64}\/[\w.+-]{1,64}$/.test(essence) ? essence : "(malformed)";
}

function requestHeaders(callerHeaders: Record<string, string> | undefined): Record<string, string> {
  const merged = { ...DEFAULT_HEADERS };
  for (const [name, value] of Object.entries(callerHeaders ?? {})) {
    const key = name.toLowerCase();
    if (!CONTROLLED_HEADERS.has(key)) merged[key] = value;
  }
  return merged;
}

function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  const kept = { ...headers };
  for (const name of CREDENTIAL_HEADERS) delete kept[name];
  return kept;
}

/** Maps socket/TLS/parser errors to our own words: upstream text never reaches the user. */
function connectionFailure(shown: string, error: unknown): ImportError {
  const code = errorCode(error) ?? "";
  const fail = (reason: string, permanent: boolean) =>
    new ImportError(`Could not fetch ${shown}: ${reason}`, { permanent, cause: error, reason });
  if (code === "ECONNREFUSED") return fail("the server refused the connection", false);
  if (code === "ECONNRESET" || code === "EPIPE") return fail("the connection was reset", false);
  if (code === "ETIMEDOUT") return fail("the connection timed out", false);
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH") return fail("the server is unreachable", false);
  if (/CERT|SSL|TLS|SIGNATURE/i.test(code)) return fail("the site's TLS certificate is not valid", true);
  if (code.startsWith("HPE_")) return fail("the server sent a malformed HTTP response", false);
  if (code === "ERR_INVALID_CHAR" || code === "ERR_INVALID_HTTP_TOKEN") return fail("a request header is invalid", true);
  return fail("the connection failed", false);
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A URL fit for an error message: no credentials, bounded length. */
function displayUrl(url: string | URL): string {
  let text: string;
  if (typeof url === "string") {
    try {
      return displayUrl(new URL(url));
    } catch {
      text = url;
    }
  } else {
    const copy = new URL(url.href);
    copy.username = "";
    copy.password = "";
    text = copy.href;
  }
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function formatSize(bytes: number): string {
  if (bytes % MIB === 0) return `${bytes / MIB} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
