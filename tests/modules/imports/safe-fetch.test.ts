import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import http from "node:http";
import net from "node:net";
import zlib from "node:zlib";
import { classifyAddress } from "../../../src/modules/imports/address-policy";
import { createSafeFetcher as createRealSafeFetcher } from "../../../src/modules/imports/safe-fetch/fetch-page";
import type { Resolver, SafeFetcherOptions } from "../../../src/modules/imports/safe-fetch/options";
import { importRejectionOf as failureOf } from "../../support/import-failure";
import { loopbackOnly } from "../../support/loopback-only";
import { until } from "../../support/until";

/** Every address a fetcher of this file was about to open a socket to, in order (its beforeConnect runs just before). */
const attempted: string[] = [];
const createSafeFetcher = (options: SafeFetcherOptions) =>
  createRealSafeFetcher({
    beforeConnect: (address) => {
      loopbackOnly(address);
      attempted.push(address);
    },
    ...options,
  });
/** The addresses `run` had a fetcher connect to: known as soon as it settles, since a socket opens only after beforeConnect. */
async function connectsDuring(run: () => Promise<unknown>): Promise<string[]> {
  const before = attempted.length;
  await run();
  return attempted.slice(before);
}

// Tests only ever touch loopback. 127.0.0.2 plays "a public host" through the injected policy.
const FAKE_PUBLIC = "127.0.0.2";
const treat127002AsPublic = (address: string) =>
  address === FAKE_PUBLIC ? { public: true, description: "a public address" } : classifyAddress(address);

interface Listener {
  port: number;
  origin: string;
  connections: () => number;
  closedSockets: () => number;
  close: () => Promise<void>;
}

/** A listener that counts connections; for the blocked cases any count above zero is a leak. */
async function listen(host: string, port: number, handler?: http.RequestListener): Promise<Listener> {
  const server = handler ? http.createServer(handler) : net.createServer((socket) => socket.destroy());
  let connections = 0;
  let closed = 0;
  server.on("connection", (socket: net.Socket) => {
    connections++;
    socket.on("close", () => closed++);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as net.AddressInfo).port;
  return {
    port: bound,
    origin: `http://${host.includes(":") ? `[${host}]` : host}:${bound}`,
    connections: () => connections,
    closedSockets: () => closed,
    close: () => {
      (server as http.Server).closeAllConnections?.();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}


/** A resolver stub answering from a table; records every question. */
function stubResolver(answers: Record<string, string[] | (() => string[])>) {
  const asked: string[] = [];
  const resolve: Resolver = async (hostname) => {
    asked.push(hostname);
    const entry = answers[hostname];
    if (!entry) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    const addresses = typeof entry === "function" ? entry() : entry;
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return { resolve, asked };
}

describe("refuses non-public targets without connecting", () => {
  let v4: Listener;
  let v6: Listener;
  beforeAll(async () => {
    v4 = await listen("127.0.0.1", 0);
    v6 = await listen("::1", 0);
  });
  afterAll(() => {
    v4.close();
    v6.close();
  });

  const blocked: [string, () => string, RegExp][] = [
    ["decimal 2130706433", () => `http://2130706433:${v4.port}/`, /127\.0\.0\.1 is a loopback address/],
    ["hex 0x7f.1", () => `http://0x7f.1:${v4.port}/`, /127\.0\.0\.1 is a loopback address/],
    ["short 127.1", () => `http://127.1:${v4.port}/`, /127\.0\.0\.1 is a loopback address/],
    ["IPv4-mapped [::ffff:127.0.0.1]", () => `http://[::ffff:127.0.0.1]:${v4.port}/`, /loopback address \(IPv4-mapped 127\.0\.0\.1\)/],
    ["IPv6 loopback [::1]", () => `http://[::1]:${v6.port}/`, /::1 is a loopback address/],
    ["unspecified 0.0.0.0", () => `http://0.0.0.0:${v4.port}/`, /0\.0\.0\.0 is an unspecified address/],
    ["cloud metadata 169.254.169.254", () => "http://169.254.169.254/latest/meta-data/", /169\.254\.169\.254 is a link-local address/],
    ["CGNAT metadata 100.100.100.200", () => "http://100.100.100.200/latest/meta-data/", /100\.100\.100\.200 is a carrier-grade NAT address/],
    ["localhost through the system resolver", () => `http://localhost:${v4.port}/`, /localhost resolves to (127\.0\.0\.1|::1), a loopback address/],
  ];

  test.each(blocked)("%s", async (_name, url, reason) => {
    const fetcher = createSafeFetcher({ allowPrivateNetworks: false, allowedPorts: [v4.port, v6.port] });
    let error!: Awaited<ReturnType<typeof failureOf>>;
    expect(await connectsDuring(async () => (error = await failureOf(fetcher(url()))))).toEqual([]);
    expect(error.message).toMatch(/^Refused to fetch /);
    expect(error.message).toMatch(reason);
    expect(error.message).toContain("imports only reach public addresses");
    expect(error.permanent).toBe(true);
    expect(v4.connections()).toBe(0);
    expect(v6.connections()).toBe(0);
  });

  test("a host name that resolves to a private address", async () => {
    const { resolve } = stubResolver({ "intranet.test": ["10.0.0.5"] });
    const fetcher = createSafeFetcher({ allowPrivateNetworks: false, resolve });
    const error = await failureOf(fetcher("http://intranet.test/"));
    expect(error.message).toBe(
      "Refused to fetch http://intranet.test/: intranet.test resolves to 10.0.0.5, a private address; imports only reach public addresses",
    );
    expect(error.permanent).toBe(true);
  });

  test("a host name with one public and one loopback record is refused", async () => {
    const { resolve } = stubResolver({ "mixed.test": [FAKE_PUBLIC, "127.0.0.1"] });
    const fetcher = createSafeFetcher({
      allowPrivateNetworks: false,
      resolve,
      allowedPorts: [v4.port],
      classifyAddress: treat127002AsPublic,
    });
    let error!: Awaited<ReturnType<typeof failureOf>>;
    expect(await connectsDuring(async () => (error = await failureOf(fetcher(`http://mixed.test:${v4.port}/`))))).toEqual([]);
    expect(error.message).toMatch(/mixed\.test resolves to 127\.0\.0\.1, a loopback address/);
    expect(v4.connections()).toBe(0);
  });

  test("a port outside the allowed list is refused before any DNS lookup", async () => {
    const { resolve, asked } = stubResolver({ "example.test": ["8.8.8.8"] });
    const fetcher = createSafeFetcher({ allowPrivateNetworks: false, resolve });
    const error = await failureOf(fetcher("http://example.test:22/"));
    expect(error.message).toMatch(/port 22 is not allowed/);
    expect(error.permanent).toBe(true);
    expect(asked).toEqual([]);
  });

  test.each(["file:///etc/passwd", "ftp://example.com/file", "gopher://127.0.0.1:70/_x", "data:text/html,hi", "javascript:alert(1)"])(
    "the %s scheme is refused",
    async (url) => {
      const fetcher = createSafeFetcher({ allowPrivateNetworks: true });
      const error = await failureOf(fetcher(url));
      expect(error.message).toMatch(/only http and https URLs can be imported/);
      expect(error.permanent).toBe(true);
    },
  );

  test("a URL with a user name or password is refused, and the password is not repeated", async () => {
    const fetcher = createSafeFetcher({ allowPrivateNetworks: true });
    let error!: Awaited<ReturnType<typeof failureOf>>;
    expect(await connectsDuring(async () => (error = await failureOf(fetcher(`http://admin:hunter2@127.0.0.1:${v4.port}/`))))).toEqual([]);
    expect(error.message).toMatch(/URLs with a user name or password are not allowed/);
    expect(error.message).not.toContain("hunter2");
    expect(error.permanent).toBe(true);
    expect(v4.connections()).toBe(0);
  });

  test("an invalid URL is refused", async () => {
    const fetcher = createSafeFetcher({ allowPrivateNetworks: true });
    const error = await failureOf(fetcher("not a url"));
    expect(error.message).toMatch(/not a valid URL/);
    expect(error.permanent).toBe(true);
  });
});

describe("redirects and DNS answers are re-checked on every hop", () => {
  let trap: Listener;
  let publicHost: Listener;
  let publicTarget = "/";
  beforeAll(async () => {
    trap = await listen("127.0.0.1", 0);
    // Same port on 127.0.0.2, so a lookup that slipped to 127.0.0.1 would land in the trap.
    publicHost = await listen(FAKE_PUBLIC, trap.port, (req, res) => {
      if (req.url === "/whoami") {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end(`served by ${req.socket.localAddress} for host ${req.headers.host}`);
        return;
      }
      res.writeHead(302, { location: publicTarget });
      res.end();
    });
  });
  afterAll(() => {
    trap.close();
    publicHost.close();
  });

  const fetcherWith = (resolve?: Resolver) =>
    createSafeFetcher({
      allowPrivateNetworks: false,
      allowedPorts: [trap.port],
      classifyAddress: treat127002AsPublic,
      resolve,
    });

  test("a 302 from a public host to loopback is refused", async () => {
    publicTarget = `http://127.0.0.1:${trap.port}/admin`;
    const before = publicHost.connections();
    let error!: Awaited<ReturnType<typeof failureOf>>;
    expect(await connectsDuring(async () => (error = await failureOf(fetcherWith()(`${publicHost.origin}/start`))))).toEqual([FAKE_PUBLIC]);
    expect(error.message).toBe(
      `Refused to fetch http://127.0.0.1:${trap.port}/admin (redirected from ${publicHost.origin}/start): 127.0.0.1 is a loopback address; imports only reach public addresses`,
    );
    expect(error.permanent).toBe(true);
    expect(publicHost.connections()).toBe(before + 1);
    expect(trap.connections()).toBe(0);
  });

  test("a redirect to a host name that resolves to loopback is refused", async () => {
    publicTarget = `http://internal.test:${trap.port}/`;
    const { resolve } = stubResolver({ "internal.test": ["127.0.0.1"] });
    let error!: Awaited<ReturnType<typeof failureOf>>;
    expect(await connectsDuring(async () => (error = await failureOf(fetcherWith(resolve)(`${publicHost.origin}/start`))))).toEqual([FAKE_PUBLIC]);
    expect(error.message).toMatch(/internal\.test resolves to 127\.0\.0\.1, a loopback address/);
    expect(trap.connections()).toBe(0);
  });

  test("Bun's node:http honours the pinned lookup: the socket goes to the checked address", async () => {
    // The system resolver says localhost is 127.0.0.1 (the trap); our lookup says 127.0.0.2.
    const { resolve, asked } = stubResolver({ localhost: [FAKE_PUBLIC] });
    let page!: Awaited<ReturnType<ReturnType<typeof fetcherWith>>>;
    expect(await connectsDuring(async () => (page = await fetcherWith(resolve)(`http://localhost:${trap.port}/whoami`)))).toEqual([FAKE_PUBLIC]);
    expect(page.body).toBe(`served by ${FAKE_PUBLIC} for host localhost:${trap.port}`);
    expect(asked).toEqual(["localhost"]);
    expect(trap.connections()).toBe(0);
  });

  test("a resolver that answers public first and loopback second (rebinding) is refused", async () => {
    publicTarget = `http://rebind.test:${trap.port}/again`;
    let calls = 0;
    const { resolve } = stubResolver({ "rebind.test": () => (calls++ === 0 ? [FAKE_PUBLIC] : ["127.0.0.1"]) });
    let error!: Awaited<ReturnType<typeof failureOf>>;
    expect(await connectsDuring(async () => (error = await failureOf(fetcherWith(resolve)(`http://rebind.test:${trap.port}/start`))))).toEqual([FAKE_PUBLIC]);
    expect(calls).toBe(2);
    expect(error.message).toMatch(/rebind\.test resolves to 127\.0\.0\.1, a loopback address/);
    expect(trap.connections()).toBe(0);
  });

  test("an unknown host name is a permanent failure", async () => {
    const { resolve } = stubResolver({});
    const error = await failureOf(fetcherWith(resolve)(`http://nowhere.test:${trap.port}/`));
    expect(error.message).toMatch(/the host name nowhere\.test does not exist/);
    expect(error.permanent).toBe(true);
  });

  test("a temporary DNS failure is transient", async () => {
    const resolve: Resolver = async () => {
      throw Object.assign(new Error("try again"), { code: "EAI_AGAIN" });
    };
    const error = await failureOf(fetcherWith(resolve)(`http://flaky.test:${trap.port}/`));
    expect(error.message).toMatch(/could not be resolved right now/);
    expect(error.permanent).toBe(false);
  });
});

// GBK bytes of "你好，世界".
const GBK_HELLO = Buffer.from([0xc4, 0xe3, 0xba, 0xc3, 0xa3, 0xac, 0xca, 0xc0, 0xbd, 0xe7]);

describe("fetching from a fixture server with allowPrivateNetworks", () => {
  let server: Listener;
  let bigBodyBytesWritten = 0;
  let bigBodyEnded = false;
  beforeAll(async () => {
    server = await listen("127.0.0.1", 0, async (req, res) => {
      const path = req.url ?? "/";
      const redirect = /^\/redirect\/(\d+)$/.exec(path);
      if (redirect) {
        const left = Number(redirect[1]);
        if (left === 0) {
          res.writeHead(200, { "content-type": "text/plain" });
          res.end("arrived");
        } else {
          res.writeHead(302, { location: `./${left - 1}` });
          res.end();
        }
        return;
      }
      switch (path) {
        case "/page":
          res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
          res.end("<html><head><title>Hello</title></head><body>Grüße</body></html>");
          return;
        case "/headers":
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify(req.headers));
          return;
        case "/gbk":
          res.writeHead(200, { "content-type": 'text/html; charset="GBK"' });
          res.end(GBK_HELLO);
          return;
        case "/gbk-meta":
          res.writeHead(200, { "content-type": "text/html" });
          res.end(Buffer.concat([Buffer.from('<html><head><meta charset="gb18030"></head><body>'), GBK_HELLO]));
          return;
        case "/gzip":
          res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-encoding": "gzip" });
          res.end(zlib.gzipSync("<p>compressed 你好</p>"));
          return;
        case "/deflate":
          res.writeHead(200, { "content-type": "text/plain", "content-encoding": "deflate" });
          res.end(zlib.deflateSync("deflated"));
          return;
        case "/br":
          res.writeHead(200, { "content-type": "text/plain", "content-encoding": "br" });
          res.end(zlib.brotliCompressSync("brotli"));
          return;
        case "/bomb":
          res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
          res.end(zlib.gzipSync(Buffer.alloc(16 * 1024 * 1024)));
          return;
        case "/big": {
          // Streams up to 64 MiB with backpressure; a client that stops reading stops this loop.
          res.writeHead(200, { "content-type": "text/plain" });
          const chunk = Buffer.alloc(64 * 1024, "a");
          bigBodyBytesWritten = 0;
          bigBodyEnded = false;
          while (bigBodyBytesWritten < 64 * 1024 * 1024 && !res.destroyed) {
            bigBodyBytesWritten += chunk.length;
            if (!res.write(chunk)) {
              await new Promise<void>((resolve) => {
                const done = () => {
                  res.off("drain", done);
                  res.off("close", done);
                  resolve();
                };
                res.on("drain", done);
                res.on("close", done);
              });
            }
          }
          bigBodyEnded = true;
          res.end();
          return;
        }
        case "/declared-big":
          res.writeHead(200, { "content-type": "text/plain", "content-length": String(1024 * 1024) });
          res.end(Buffer.alloc(1024 * 1024, "a"));
          return;
        case "/hang":
          return;
        case "/missing":
          res.writeHead(404, { "content-type": "text/html" });
          res.end("<h1>Not here</h1>");
          return;
        case "/png":
          res.writeHead(200, { "content-type": "image/png" });
          res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
          return;
        case "/png-404":
          res.writeHead(404, { "content-type": "image/png" });
          res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
          return;
        case "/untyped":
          res.writeHead(200);
          res.end("just text");
          return;
        case "/see-other":
          res.writeHead(303, { location: "/page" });
          res.end();
          return;
        case "/to-other-origin":
          res.writeHead(302, { location: `http://localhost:${server.port}/headers` });
          res.end();
          return;
        case "/to-file":
          res.writeHead(302, { location: "file:///etc/passwd" });
          res.end();
          return;
        default:
          res.writeHead(500);
          res.end();
      }
    });
  });
  afterAll(() => server.close());

  const fetcher = (options: Partial<Parameters<typeof createSafeFetcher>[0]> = {}) =>
    createSafeFetcher({ allowPrivateNetworks: true, ...options });

  test("a 200 HTML page resolves with its final URL, status, type and text", async () => {
    const page = await fetcher()(`${server.origin}/page`);
    expect(page).toEqual({
      url: `${server.origin}/page`,
      status: 200,
      contentType: "text/html; charset=utf-8",
      body: "<html><head><title>Hello</title></head><body>Grüße</body></html>",
    });
  });

  test("sends a browser User-Agent and Accept-Encoding by default; caller headers override", async () => {
    const defaults = JSON.parse((await fetcher()(`${server.origin}/headers`)).body);
    expect(defaults["user-agent"]).toMatch(/^Mozilla\/5\.0 /);
    expect(defaults["accept-encoding"]).toBe("gzip, deflate, br");
    const overridden = JSON.parse(
      (await fetcher()(`${server.origin}/headers`, { headers: { "User-Agent": "Rhizome-Test", Host: "evil.test" } })).body,
    );
    expect(overridden["user-agent"]).toBe("Rhizome-Test");
    expect(overridden.host).toBe(`127.0.0.1:${server.port}`);
  });

  test("a charset=GBK page is decoded", async () => {
    expect((await fetcher()(`${server.origin}/gbk`)).body).toBe("你好，世界");
  });

  test("a page without a charset is decoded by its <meta charset>", async () => {
    expect((await fetcher()(`${server.origin}/gbk-meta`)).body).toEndWith("<body>你好，世界");
  });

  test("gzip, deflate and br bodies are decompressed", async () => {
    expect((await fetcher()(`${server.origin}/gzip`)).body).toBe("<p>compressed 你好</p>");
    expect((await fetcher()(`${server.origin}/deflate`)).body).toBe("deflated");
    expect((await fetcher()(`${server.origin}/br`)).body).toBe("brotli");
  });

  test("exactly 5 redirects are followed, with relative Locations", async () => {
    const page = await fetcher()(`${server.origin}/redirect/5`);
    expect(page.status).toBe(200);
    expect(page.url).toBe(`${server.origin}/redirect/0`);
    expect(page.body).toBe("arrived");
  });

  test("more than 5 redirects are refused", async () => {
    const error = await failureOf(fetcher()(`${server.origin}/redirect/6`));
    expect(error.message).toMatch(/too many redirects \(more than 5\)/);
    expect(error.permanent).toBe(true);
  });

  test("a 303 is followed with a GET", async () => {
    const page = await fetcher()(`${server.origin}/see-other`);
    expect(page.url).toBe(`${server.origin}/page`);
    expect(page.status).toBe(200);
  });

  test("a redirect to another origin drops the caller's cookies", async () => {
    const page = await fetcher()(`${server.origin}/to-other-origin`, {
      headers: { cookie: "session=secret", "user-agent": "Rhizome-Test" },
    });
    const headers = JSON.parse(page.body);
    expect(page.url).toBe(`http://localhost:${server.port}/headers`);
    expect(headers.cookie).toBeUndefined();
    expect(headers["user-agent"]).toBe("Rhizome-Test");
  });

  test("a redirect to a non-http scheme is refused even with allowPrivateNetworks", async () => {
    const error = await failureOf(fetcher()(`${server.origin}/to-file`));
    expect(error.message).toMatch(/file:\/\/\/etc\/passwd .*only http and https URLs can be imported/);
  });

  test("a streamed body over the cap is refused and reading stops", async () => {
    const error = await failureOf(fetcher({ maxBodyBytes: 4096 })(`${server.origin}/big`));
    expect(error.message).toMatch(/the page is larger than 4 KiB/);
    expect(error.permanent).toBe(true);
    // The server stops writing once the fetcher has gone: it never sends the 64 MiB it would.
    await until(() => bigBodyEnded, { what: "the server to stop writing" });
    expect(bigBodyBytesWritten).toBeLessThan(32 * 1024 * 1024);
  });

  test("a declared Content-Length over the cap is refused before reading", async () => {
    const error = await failureOf(fetcher({ maxBodyBytes: 1024 })(`${server.origin}/declared-big`));
    expect(error.message).toMatch(/the page is larger than 1 KiB/);
  });

  test("a gzip bomb is refused by the decompressed-size cap", async () => {
    const error = await failureOf(fetcher({ maxBodyBytes: 1024 * 1024 })(`${server.origin}/bomb`));
    expect(error.message).toMatch(/the page is larger than 1 MiB/);
    expect(error.permanent).toBe(true);
  });

  test("a server that never answers times out, transiently, and the socket is closed", async () => {
    const closedBefore = server.closedSockets();
    // The server never answers: only the 200 ms deadline can end this, and the message says it did.
    const error = await failureOf(fetcher({ timeoutMs: 200 })(`${server.origin}/hang`));
    expect(error.message).toBe(`Could not fetch ${server.origin}/hang: timed out after 0.2 s`);
    expect(error.permanent).toBe(false);
    expect(await until(() => server.closedSockets(), { what: "the socket to close", done: (closed) => closed > closedBefore })).toBe(closedBefore + 1);
  });

  test("a 404 resolves with status 404", async () => {
    const page = await fetcher()(`${server.origin}/missing`);
    expect(page.status).toBe(404);
    expect(page.body).toBe("<h1>Not here</h1>");
  });

  test("a 404 with a non-text type resolves with an empty body", async () => {
    const page = await fetcher()(`${server.origin}/png-404`);
    expect(page).toMatchObject({ status: 404, contentType: "image/png", body: "" });
  });

  test("an image/png page is refused", async () => {
    const error = await failureOf(fetcher()(`${server.origin}/png`));
    expect(error.message).toMatch(/unsupported content type image\/png/);
    expect(error.permanent).toBe(true);
  });

  test("a document type the caller names (a PDF) is answered with its headers and no body, unread", async () => {
    const page = await fetcher({ documentContentTypes: ["image/png"] })(`${server.origin}/png`);
    expect(page).toMatchObject({ status: 200, contentType: "image/png", body: "" });
  });

  test("a page without a Content-Type is read as text", async () => {
    const page = await fetcher()(`${server.origin}/untyped`);
    expect(page).toMatchObject({ status: 200, contentType: "", body: "just text" });
  });

  test("the caller's AbortSignal aborts a pending fetch and closes the socket", async () => {
    const [closedBefore, connectedBefore] = [server.closedSockets(), server.connections()];
    const controller = new AbortController();
    const fetching = failureOf(fetcher()(`${server.origin}/hang`, { signal: controller.signal }));
    // Aborted once the request is in the server's hands, where only the signal can end it.
    await until(() => server.connections() > connectedBefore, { what: "the request to arrive" });
    controller.abort();
    const error = await fetching;
    expect(error.message).toMatch(/cancelled/);
    expect(error.permanent).toBe(false);
    expect(await until(() => server.closedSockets(), { what: "the socket to close", done: (closed) => closed > closedBefore })).toBe(closedBefore + 1);
  });

  test("an already-aborted signal never connects", async () => {
    const before = server.connections();
    let error!: Awaited<ReturnType<typeof failureOf>>;
    expect(await connectsDuring(async () => (error = await failureOf(fetcher()(`${server.origin}/page`, { signal: AbortSignal.abort() }))))).toEqual([]);
    expect(error.message).toMatch(/cancelled/);
    expect(server.connections()).toBe(before);
  });

  test("a refused connection is transient", async () => {
    const closed = await listen("127.0.0.1", 0);
    await closed.close();
    const error = await failureOf(fetcher()(`${closed.origin}/`));
    expect(error.message).toMatch(/the server refused the connection/);
    expect(error.permanent).toBe(false);
  });
});
