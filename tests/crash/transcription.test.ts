// kill -9 of the whole service while a recording is being transcribed piece by piece, then a restart on the same
// data directory: the pieces already transcribed are not sent again, and the note is whole.
import { afterAll, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { recordingBytes } from "../support/aac-audio";
import { Api } from "../support/api";
import { startFakeStt } from "../support/fake-stt";
import { serviceDataDirForThisFile, startServiceProcess, type ServiceProcess } from "../support/service-process";
import { settleTask } from "../support/settle-task";
import { until } from "../support/until";

/** 10 minutes (the last sentence ending before the recording does) in 60 s pieces: 10 requests, the server held after the 4th is answered. */
const SECONDS = 599.5;
const CHUNK = 60;
const ANSWERED_BEFORE_KILL = 4;

const stt = startFakeStt();
const dataDir = serviceDataDirForThisFile("rhizome-crash-stt-");
let service: ServiceProcess | undefined;
afterAll(() => stt.stop());

test(
  "after kill -9 mid-transcription and a restart, transcribed pieces are not sent again and the note is whole",
  async () => {
    const environment = { STT_BASE_URL: stt.baseUrl, STT_MODEL: "whisper-1", STT_CHUNK_SECONDS: String(CHUNK) };
    service = await startServiceProcess({ dataDir, environment });
    const { api, username, password } = await new Api(service.url).newUser("crash");
    stt.state.holdAfter = ANSWERED_BEFORE_KILL;
    const created = await api.request("POST", "/api/tasks/audio?title=Long%20talk", { body: await recordingBytes({ seconds: SECONDS }), headers: { "content-type": "audio/mp4" } });
    expect(created.status).toBe(201);

    // The 5th piece has reached the server, which holds it: four are answered (and saved), one is in flight.
    await until(() => stt.state.uploads.length, { timeoutMs: 60_000, what: "the fifth piece to reach the server", done: (count) => count > ANSWERED_BEFORE_KILL });
    const seen = await until(() => api.get(`/api/tasks/${created.body.id}`), { timeoutMs: 10_000, what: "progress on the task", done: (response) => /Transcribing piece 5 of 10/.test(response.body.message) });
    expect(seen.body.status).toBe("running");
    await service.kill();
    const before = stt.state.uploads.map((upload) => Math.round(upload.start));
    expect(before).toEqual([0, 55, 115, 175, 235]);

    stt.state.holdAfter = Infinity;
    service = await startServiceProcess({ dataDir, environment });
    const again = new Api(service.url).withToken(await new Api(service.url).login(username, password));
    const task = await settleTask(again, created.body.id, { timeoutMs: 90_000 });
    expect(task).toMatchObject({ status: "completed", failures: [] });

    // Only the piece that was in flight, and those after it, were sent after the restart.
    const after = stt.state.uploads.slice(before.length).map((upload) => Math.round(upload.start));
    expect(after).toEqual([235, 295, 355, 415, 475, 535]);
    const note = (await again.get(`/api/notes/${task.note_id}`)).body;
    const sentences = [...note.content.matchAll(/Sentence \d+( \(cut\))?\./g)].map((match) => match[0]);
    expect(sentences).toEqual(Array.from({ length: 120 }, (_, n) => `Sentence ${n}.`));
    expect((await again.get("/api/auth/me")).body.usage.stt_requests).toBe(10);
    expect(fs.readdirSync(path.join(dataDir, "media"))).toEqual([]);
  },
  240_000,
);
