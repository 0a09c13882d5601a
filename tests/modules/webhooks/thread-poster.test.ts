import { afterAll, expect, test } from "bun:test";
import { ImportError } from "../../../src/modules/imports/import-error";
import { createThreadPoster } from "../../../src/modules/webhooks/thread-poster";

// A loopback receiver: answers 204, or hangs for paths under /hang; notes the client port of each request.
const ports: number[] = [];
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request, server) {
    ports.push(server.requestIP(request)!.port);
    if (new URL(request.url).pathname.startsWith("/hang")) await Bun.sleep(5_000);
    return new Response(null, { status: request.headers.get("webhook-id") === "evt_teapot" ? 418 : 204 });
  },
});
afterAll(() => receiver.stop(true));
const url = (path: string) => `http://127.0.0.1:${receiver.port}${path}`;
const request = (id: string) => ({ headers: { "webhook-id": id }, body: "{}" });

test("a POST made in the delivery thread answers with the receiver's status", async () => {
  const { post } = createThreadPoster({ allowPrivateNetworks: true, timeoutMs: 2_000, maxRedirects: 0 });
  expect(await post(url("/in"), request("evt_1"))).toEqual({ status: 204 });
  expect(await post(url("/in"), request("evt_teapot"))).toEqual({ status: 418 });
});

test("the address rules hold in the thread: a private address is refused as an ImportError with its reason", async () => {
  const { post } = createThreadPoster({ allowPrivateNetworks: false, timeoutMs: 2_000, maxRedirects: 0 });
  const error = await post(url("/in"), request("evt_2")).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ImportError);
  expect((error as ImportError).reason).toContain("127.0.0.1");
});

test("the thread's deadline cuts a hanging receiver, and the caller's signal cuts at once", async () => {
  const { post } = createThreadPoster({ allowPrivateNetworks: true, timeoutMs: 300, maxRedirects: 0 });
  const timedOut = await post(url("/hang"), request("evt_3")).catch((caught: unknown) => caught);
  expect((timedOut as ImportError).reason).toBe("timeout after 0.3 s");
  const controller = new AbortController();
  const pending = post(url("/hang/2"), { ...request("evt_4"), signal: controller.signal });
  controller.abort(new Error("shutting down"));
  expect(await pending.catch((caught: Error) => caught.message)).toBe("shutting down");
});

test("a group's kept connections carry its POSTs over one connection", async () => {
  const { post, keepConnections } = createThreadPoster({ allowPrivateNetworks: true, timeoutMs: 2_000, maxRedirects: 0 });
  ports.length = 0;
  const connections = keepConnections();
  for (let index = 0; index < 3; index++) expect((await post(url("/in"), { ...request(`evt_k${index}`), connections })).status).toBe(204);
  connections.close();
  expect(new Set(ports).size).toBe(1);
});
