import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { recordingBytes } from "../support/aac-audio";
import { Api, expectError } from "../support/api";
import { uploadArchive } from "../support/archive-import";
import { startFakeStt } from "../support/fake-stt";
import { startTestServer, type TestServer } from "../support/server";
import { settleTask } from "../support/settle-task";
import { buildZip } from "../support/zip-builder";

const MIB = 1024 * 1024;
const stt = startFakeStt();
let server: TestServer;
let alice: Api;
let bob: Api;
let first: Uint8Array<ArrayBuffer>;
let second: Uint8Array<ArrayBuffer>;
let openGate: () => void = () => {};

beforeAll(async () => {
  // Two recordings of ~630 KB each: either fits UPLOADS_PENDING_MAX_MB=1, both do not.
  [first, second] = await Promise.all([recordingBytes({ seconds: 80, padding: 1000 }), recordingBytes({ seconds: 80, padding: 1000, offsetSeconds: 600 })]);
  server = await startTestServer({ STT_BASE_URL: stt.baseUrl, STT_MODEL: "whisper-1", UPLOADS_PENDING_MAX_MB: "1" });
  alice = (await new Api(server.url).newUser("alice")).api;
  bob = (await new Api(server.url).newUser("bob")).api;
  // The stand-in server holds every recording it is sent until the test lets it answer: their tasks wait meanwhile.
  stt.state.holdAfter = 0;
  stt.state.gate = new Promise((resolve) => (openGate = resolve));
});
afterAll(async () => {
  openGate();
  await server.stop();
  stt.stop();
});

const mediaDir = () => path.join(server.dataDir, "media");
const archivesDir = () => path.join(server.dataDir, "archives");
const uploadsOnDisk = () => [mediaDir(), archivesDir()].flatMap((dir) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => !name.includes("piece")) : []));
const uploadRecording = (client: Api, body: BodyInit) => client.request("POST", "/api/tasks/audio", { body, headers: { "content-type": "audio/mp4" } });

/** The bytes as a body without Content-Length (chunked), 64 KiB at a time; null: 64 KiB chunks without end. */
function streamed(bytes: Uint8Array | null): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (bytes === null) return controller.enqueue(new Uint8Array(64 * 1024));
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + 64 * 1024));
      at += 64 * 1024;
    },
  });
}

async function uploadStreamed(client: Api, route: string, type: string, bytes: Uint8Array | null) {
  const response = await fetch(`${server.url}${route}`, {
    method: "POST",
    headers: { authorization: `Bearer ${client.token}`, "content-type": type },
    body: streamed(bytes),
    duplex: "half",
  } as RequestInit);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined, text };
}

describe("uploads waiting for their tasks (UPLOADS_PENDING_MAX_MB=1): recordings, archives and documents", () => {
  test("an upload that would take a user past the cap is a 429 with Retry-After, by Content-Length or as it streams, and nothing of it is kept; another user is unaffected; once the task ends the user may upload again", async () => {
    expect(first.length).toBeLessThan(MIB);
    expect(first.length + second.length).toBeGreaterThan(MIB);

    const waiting = await uploadRecording(alice, first);
    expect(waiting.status).toBe(201);
    const tasksBefore = (await alice.get("/api/tasks")).body.total;
    const archive = buildZip([{ name: "big.md", data: "x".repeat(600 * 1024) }]);
    const onDisk = uploadsOnDisk();
    expect(onDisk).toHaveLength(1);

    const refusals = [
      () => uploadRecording(alice, second),
      // As it streams: a body without end is refused once it passes the cap, not read on.
      () => uploadStreamed(alice, "/api/tasks/audio", "audio/mp4", null),
      // Archives count against the same cap.
      () => uploadArchive(alice, archive),
      () => uploadStreamed(alice, "/api/tasks/archive", "application/zip", archive),
      // And documents.
      () => alice.request("POST", "/api/tasks/document", { body: new Uint8Array(900 * 1024).fill(32), headers: { "content-type": "text/plain" } }),
      () => uploadStreamed(alice, "/api/tasks/document", "application/pdf", null),
    ];
    for (const upload of refusals) {
      const refused = await upload();
      expectError(refused, 429, "TOO_MANY_REQUESTS");
      expect(refused.body.message).toContain("UPLOADS_PENDING_MAX_MB");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    expect((await alice.get("/api/tasks")).body.total).toBe(tasksBefore);
    expect(uploadsOnDisk()).toEqual(onDisk);

    // Bob's uploads are his own: the same recording is taken.
    const bobs = await uploadRecording(bob, second);
    expect(bobs.status).toBe(201);

    openGate();
    expect((await settleTask(alice, waiting.body.id)).status).toBe("completed");
    const again = await uploadStreamed(alice, "/api/tasks/audio", "audio/mp4", second);
    expect(again.status).toBe(201);
    expect((await settleTask(alice, again.body.id)).status).toBe("completed");
    expect((await settleTask(bob, bobs.body.id)).status).toBe("completed");
  });

  test("an upload whose task failed no longer counts", async () => {
    const carol = (await new Api(server.url).newUser("carol")).api;
    const junk = await uploadRecording(carol, new Uint8Array(900 * 1024).fill(60));
    expect(junk.status).toBe(201);
    expect((await settleTask(carol, junk.body.id)).status).toBe("failed");
    expect((await uploadRecording(carol, second)).status).toBe(201);
  });
});
