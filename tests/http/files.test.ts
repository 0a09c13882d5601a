import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Api, expectError } from "../support/api";
import { imageBytes } from "../support/images";
import { serverForThisFile } from "../support/server";

const { server, api } = await serverForThisFile({ FILES_MAX_BYTES_PER_USER: String(64 * 1024) });

function upload(client: Api, bytes: Uint8Array | string, contentType = "application/octet-stream") {
  return client.request("POST", "/api/files", { body: bytes as BodyInit, headers: { "content-type": contentType } });
}

async function readBytes(client: Api, url: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${client.baseUrl}${url}`, { headers: { authorization: `Bearer ${client.token}`, ...headers } });
  return { response, bytes: new Uint8Array(await response.arrayBuffer()) };
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

describe("POST /api/files and GET /api/files/{id}", () => {
  test("an upload is read back with exact bytes and the contract's headers", async () => {
    const { api: alice } = await api.newUser("files");
    for (const [type, mime] of [["png", "image/png"], ["jpeg", "image/jpeg"], ["gif", "image/gif"], ["webp", "image/webp"], ["avif", "image/avif"]] as const) {
      const bytes = imageBytes(type, 3000, 7);
      // The declared type is ignored: the bytes say what the file is.
      const created = await upload(alice, bytes, "text/plain");
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(Number),
        url: `/api/files/${created.body.id}`,
        mime,
        size: 3000,
        sha256: sha256(bytes),
        created_at: expect.stringMatching(/Z$/),
      });
      const { response, bytes: read } = await readBytes(alice, created.body.url);
      expect(response.status).toBe(200);
      expect(Buffer.from(read).equals(Buffer.from(bytes))).toBe(true);
      expect(response.headers.get("content-type")).toBe(mime);
      expect(response.headers.get("content-length")).toBe("3000");
      expect(response.headers.get("etag")).toBe(`"${sha256(bytes)}"`);
      expect(response.headers.get("cache-control")).toBe("private, max-age=31536000, immutable");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });

  test("If-None-Match with the ETag is a 304 without a body; another tag reads the bytes", async () => {
    const { api: alice } = await api.newUser("files");
    const created = await upload(alice, imageBytes("png", 500, 2));
    const etag = `"${created.body.sha256}"`;
    const cached = await readBytes(alice, created.body.url, { "if-none-match": etag });
    expect(cached.response.status).toBe(304);
    expect(cached.bytes.length).toBe(0);
    expect(cached.response.headers.get("etag")).toBe(etag);
    expect((await readBytes(alice, created.body.url, { "if-none-match": `W/"other", ${etag}` })).response.status).toBe(304);
    expect((await readBytes(alice, created.body.url, { "if-none-match": '"other"' })).response.status).toBe(200);
  });

  test("the same picture twice is one file; the bytes are stored once under their SHA-256", async () => {
    const { api: alice } = await api.newUser("files");
    const { api: bob } = await api.newUser("files");
    const bytes = imageBytes("jpeg", 1000, 3);
    const first = await upload(alice, bytes);
    const again = await upload(alice, bytes);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    const bobs = await upload(bob, bytes);
    expect(bobs.body.id).not.toBe(first.body.id);
    const blob = path.join(server.dataDir, "files", first.body.sha256.slice(0, 2), first.body.sha256);
    expect(Buffer.from(fs.readFileSync(blob)).equals(Buffer.from(bytes))).toBe(true);
    expect(fs.readdirSync(path.join(server.dataDir, "files", "tmp"))).toEqual([]);
    expect((await alice.get("/api/auth/me")).body.storage).toEqual({ files: 1, bytes: 1000 });
  });

  test("another user's file is a 404, as is a missing one; a bad id is a 400; no token is a 401", async () => {
    const { api: alice } = await api.newUser("files");
    const { api: bob } = await api.newUser("files");
    const created = await upload(alice, imageBytes("gif", 100, 4));
    expectError(await bob.get(created.body.url), 404, "NOT_FOUND");
    expect((await bob.get(`/trpc/files.get?input=${encodeURIComponent(JSON.stringify({ id: created.body.id }))}`)).status).toBe(404);
    expectError(await alice.get("/api/files/999999"), 404, "NOT_FOUND");
    expectError(await alice.get("/api/files/abc"), 400, "BAD_REQUEST");
    expectError(await api.get(created.body.url), 401, "UNAUTHORIZED");
    expectError(await upload(api, imageBytes("png")), 401, "UNAUTHORIZED");
    expectError(await alice.delete(created.body.url), 405, "METHOD_NOT_SUPPORTED");
  });

  test("the record is a tRPC call: files.get", async () => {
    const { api: alice } = await api.newUser("files");
    const created = await upload(alice, imageBytes("webp", 100, 5));
    const record = await alice.get(`/trpc/files.get?input=${encodeURIComponent(JSON.stringify({ id: created.body.id }))}`);
    expect(record.status).toBe(200);
    expect(record.body.result.data).toEqual(created.body);
  });

  test("SVG, HTML, text and an empty body are refused: 415s and a 400", async () => {
    const { api: alice } = await api.newUser("files");
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
    expectError(await upload(alice, svg, "image/svg+xml"), 415, "UNSUPPORTED_MEDIA_TYPE");
    expectError(await upload(alice, "<!doctype html><p>hi", "image/png"), 415, "UNSUPPORTED_MEDIA_TYPE");
    expectError(await upload(alice, "just text"), 415, "UNSUPPORTED_MEDIA_TYPE");
    expectError(await upload(alice, new Uint8Array(0)), 400, "BAD_REQUEST");
    expect((await alice.get("/api/auth/me")).body.storage).toEqual({ files: 0, bytes: 0 });
    expect(fs.readdirSync(path.join(server.dataDir, "files", "tmp"))).toEqual([]);
  });

  test("a body over 10 MiB is a 413, declared or streamed, and leaves nothing behind", async () => {
    const { api: alice } = await api.newUser("files");
    const big = imageBytes("png", 10 * 1024 * 1024 + 1, 6);
    const declared = await upload(alice, big);
    expectError(declared, 413, "PAYLOAD_TOO_LARGE");
    expect(declared.body.message).toContain("10 MiB");
    // Chunked: no Content-Length, so the limit is found while streaming.
    const chunks = [big.subarray(0, 5 * 1024 * 1024), big.subarray(5 * 1024 * 1024)];
    const stream = new ReadableStream({ pull(controller) { const next = chunks.shift(); if (next) controller.enqueue(next); else controller.close(); } });
    const streamed = await fetch(`${server.url}/api/files`, { method: "POST", body: stream, headers: { authorization: `Bearer ${alice.token}` }, duplex: "half" } as RequestInit);
    expect(streamed.status).toBe(413);
    expect((await streamed.json()).code).toBe("PAYLOAD_TOO_LARGE");
    expect((await alice.get("/api/auth/me")).body.storage).toEqual({ files: 0, bytes: 0 });
    expect(fs.readdirSync(path.join(server.dataDir, "files", "tmp"))).toEqual([]);
  });

  test("past the per-user quota an upload is a 413 naming the cap; other users are unaffected", async () => {
    const { api: alice } = await api.newUser("files");
    const { api: bob } = await api.newUser("files");
    expect((await upload(alice, imageBytes("png", 40 * 1024, 8))).status).toBe(201);
    const over = await upload(alice, imageBytes("png", 30 * 1024, 9));
    expectError(over, 413, "PAYLOAD_TOO_LARGE");
    expect(over.body.message).toContain("64 KiB");
    // The same picture again costs nothing, so it is still accepted.
    expect((await upload(alice, imageBytes("png", 40 * 1024, 8))).status).toBe(201);
    expect((await upload(bob, imageBytes("png", 30 * 1024, 9))).status).toBe(201);
    expect((await alice.get("/api/auth/me")).body.storage).toEqual({ files: 1, bytes: 40 * 1024 });
  });
});
