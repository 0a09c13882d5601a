import { afterAll, expect, test } from "bun:test";
import { recordingBytes } from "../support/aac-audio";
import { startFakeStt } from "../support/fake-stt";
import { startFeedServer } from "../support/feed-server";
import { serverForThisFile } from "../support/server";
import { settleTask } from "../support/settle-task";
import { until } from "../support/until";

// CONTRACT "Feeds and follows": a podcast item (an `audio/*` enclosure) is downloaded and
// transcribed into its note by the transcript pipeline, here against the speech-to-text stand-in.

const stt = startFakeStt();
const host = startFeedServer();
afterAll(() => {
  stt.stop();
  host.stop();
});
const episode = await recordingBytes({ seconds: 30 });
host.serve("/pod/feed.xml", {
  body: host.fixture("podcast.rss", { "https://media.pod.example.fm/ta/": "ORIGIN/media/", "https://pod.example.fm/thinking-aloud": "ORIGIN/pod" }),
  type: "application/rss+xml",
  encoding: "gzip",
});
host.serve("/media/ep12.m4a", { body: episode, type: "audio/mp4" });

const { api } = await serverForThisFile({ IMPORT_ALLOW_PRIVATE_NETWORKS: "true", STT_BASE_URL: stt.baseUrl, STT_MODEL: "whisper-1" });
const { api: listener } = await api.newUser("podcaster");

test("a podcast episode's enclosure is downloaded and transcribed into its note, with the feed's tags", async () => {
  const created = await listener.post("/api/feeds", { url: host.url("/pod/feed.xml"), tags: ["播客"] });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ kind: "rss", title: "Thinking Aloud" });
  const item = await until(async () => (await listener.get(`/api/feeds/${created.body.id}/items`)).body.items[0], { what: "the episode's task", done: (found) => Boolean(found?.task_id), timeoutMs: 20_000 });
  const task = await settleTask(listener, item.task_id, { timeoutMs: 60_000 });
  expect(task).toMatchObject({ status: "completed", feed_id: created.body.id, url: `${host.origin}/pod/12` });
  const note = (await listener.get(`/api/notes/${task.note_id}`)).body;
  expect(note.title).toBe("第 12 期：损失厌恶");
  expect(note.tags.slice(0, 3)).toEqual(["web", "feed", "播客"]);
  expect(note.content).toContain("我们聊了损失厌恶。");
  expect(note.content).toContain("## Transcript\n\nspeech-to-text (whisper-1");
  expect(note.content).toContain("Sentence 0.");
  expect(stt.state.uploads.length).toBeGreaterThan(0);
  expect(host.requestsTo("/media/ep12.m4a").length).toBeGreaterThan(0);
  // The episode's page was not fetched: its note is its text and its transcript.
  expect(host.requestsTo("/pod/12")).toHaveLength(0);
  expect((await listener.get(`/api/feeds/${created.body.id}/items`)).body.items[0]).toMatchObject({ status: "imported", note_id: task.note_id });
});
