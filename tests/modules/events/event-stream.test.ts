import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { openNotesDatabase } from "../../../src/db/client";
import { readStatements } from "../../../src/db/read-statements";
import { createSession } from "../../../src/modules/auth/sessions";
import { ChangeFeed } from "../../../src/modules/events/change-feed";
import { openEventStream as serveEventStream } from "../../../src/modules/events/event-stream";
import type { StreamCredential } from "../../../src/modules/events/stream-credential";
import { openEventStream } from "../../support/event-stream";
import { manualClock } from "../../support/manual-clock";
import { until } from "../../support/until";
import { notesDatabaseForThisFile } from "../../support/notes-database";

const notes = await notesDatabaseForThisFile();
const { dir: dataDir } = notes;
let feed: ChangeFeed;
let server: ReturnType<typeof Bun.serve>;
const users: number[] = [];
/** Each user's login session, which their streams live by. */
const logins = new Map<number, StreamCredential>();

beforeAll(async () => {
  for (const name of ["ada", "bob"]) {
    const result = await notes.client.execute({ sql: "insert into users (username, username_key, password_hash, created_at) values (?, ?, 'x', 0) returning id", args: [name, name] });
    const userId = Number(result.rows[0]!.id);
    users.push(userId);
    logins.set(userId, { kind: "session", sessionId: (await createSession(notes.db, userId, { pendingTotp: false })).session.id });
  }
  feed = new ChangeFeed({ db: notes.db, graphSettings: { extractor: "local" as const, llmConcurrency: 1, anthropic: {} }, keepAliveMs: 100 });
  // The stream alone, served by Bun: the user is the `?user=` of the request.
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      const userId = Number(new URL(request.url).searchParams.get("user"));
      return serveEventStream({ userId, credential: logins.get(userId)!, feed, signal: request.signal });
    },
  });
});
afterAll(() => {
  feed.closeAll();
  server.stop(true);
});

const open = (userId: number) => openEventStream(`http://127.0.0.1:${server.port}/?user=${userId}`);

async function insertTask(userId: number, status: string) {
  const now = Date.now();
  const result = await notes.client.execute({
    sql: "insert into import_tasks (user_id, platform, content, status, progress, message, created_at, updated_at) values (?, 'web', 'x', ?, 0, 'Queued', ?, ?) returning id",
    args: [userId, status, now, now],
  });
  return Number(result.rows[0]!.id);
}

describe("the event stream", () => {
  test("a client that goes away leaves the feed: its user's subscriber count returns to 0", async () => {
    const [ada] = users as [number];
    const first = await open(ada);
    const second = await open(ada);
    await Promise.all([first.next(), second.next()]);
    expect(feed.subscriberCount(ada)).toBe(2);
    first.close();
    await until(() => feed.subscriberCount(ada) === 1, { what: "one subscriber" });
    second.close();
    await until(() => feed.subscriberCount(ada) === 0, { what: "zero subscribers" });
    expect(feed.subscriberCount()).toBe(0);
  });

  test("a change reaches only its user's streams, as the record read from the database", async () => {
    const [ada, bob] = users as [number, number];
    const [adaStream, bobStream] = [await open(ada), await open(bob)];
    await Promise.all([adaStream.next(), bobStream.next()]);
    const adaTask = await insertTask(ada, "running");
    const bobTask = await insertTask(bob, "pending");
    feed.deliver({ userId: ada, kind: "task", id: adaTask });
    // A change naming another user's task is never sent, even when delivered for this user.
    feed.deliver({ userId: bob, kind: "task", id: adaTask });
    feed.deliver({ userId: bob, kind: "task", id: bobTask });
    expect((await adaStream.next((message) => message.event === "task")).data).toMatchObject({ id: adaTask, status: "running" });
    expect((await bobStream.next((message) => message.event === "task")).data).toMatchObject({ id: bobTask, status: "pending" });
    expect(bobStream.messages.filter((message) => message.event === "task").map((message) => message.data.id)).toEqual([bobTask]);
    adaStream.close();
    bobStream.close();
  });

  test("keep-alive comments are written into the stream", async () => {
    const [ada] = users as [number];
    const reader = await open(ada);
    await reader.next((message) => message.comment === "keep-alive");
    reader.close();
    await until(() => feed.subscriberCount() === 0, { what: "closed" });
  });

  test("keep-alives go to every open stream once per interval, and stop once no stream is open", async () => {
    const [ada, bob] = users as [number, number];
    const { clock, advance, pending } = manualClock();
    const counted = new ChangeFeed({ db: notes.db, graphSettings: { extractor: "local" as const, llmConcurrency: 1, anthropic: {} }, keepAliveMs: 1_000, clock });
    const keepAlives = [0, 0];
    const sink = (index: number) => ({ send() {}, keepAlive: () => void keepAlives[index]!++, close() {} });
    const leaveAda = counted.subscribe(ada, sink(0), logins.get(ada)!);
    const leaveBob = counted.subscribe(bob, sink(1), logins.get(bob)!);
    await advance(999);
    expect(keepAlives).toEqual([0, 0]);
    await advance(1);
    expect(keepAlives).toEqual([1, 1]);
    await advance(2_000);
    expect(keepAlives).toEqual([3, 3]);
    leaveAda();
    await advance(1_000);
    expect(keepAlives).toEqual([3, 4]);
    leaveBob();
    expect(pending()).toEqual([]); // no timer left to fire
    await advance(10_000);
    expect(keepAlives).toEqual([3, 4]);
  });

  test("after news may have been lost, the graph status and the tasks changed since are sent again", async () => {
    const [ada] = users as [number];
    const reader = await open(ada);
    await reader.next((message) => message.event === "graph");
    const changed = await insertTask(ada, "completed");
    feed.missed(Date.now() - 1_000);
    await reader.next((message) => message.event === "graph");
    expect((await reader.seen((message) => message.event === "task" && message.data.id === changed)).data.status).toBe("completed");
    reader.close();
  });

  test("a change is read once for all of a user's streams, and each stream gets the same event", async () => {
    const [ada] = users as [number];
    let reads = 0;
    // Counts the status reads that the feed makes: one read snapshot each, on its own database.
    const own = await openNotesDatabase({ url: `file:${path.join(dataDir, "rhizome.db")}` });
    const statements = readStatements(own.db);
    const snapshot = statements.snapshot.bind(statements);
    statements.snapshot = (...args) => {
      reads++;
      return snapshot(...args);
    };
    try {
      const counted = new ChangeFeed({ db: own.db, graphSettings: { extractor: "local" as const, llmConcurrency: 1, anthropic: {} }, keepAliveMs: 60_000 });
      const received: string[][] = [[], [], []];
      const leave = received.map((events) =>
        counted.subscribe(ada, { send: (event, data) => events.push(`${event} ${data}`), keepAlive() {}, close() {} }, logins.get(ada)!),
      );
      await until(() => received.every((events) => events.length === 1), { what: "sent the initial status" });
      expect(reads).toBe(3); // one initial status per stream
      counted.deliver({ userId: ada, kind: "graph" });
      await until(() => received.every((events) => events.length === 2), { what: "sent the change" });
      expect(reads).toBe(4);
      expect(new Set(received.map((events) => events[1])).size).toBe(1);
      leave.forEach((unsubscribe) => unsubscribe());
      expect(counted.subscriberCount()).toBe(0);
    } finally {
      own.close();
    }
  });

  test("when the server ends every stream (shutdown), clients see the end and the feed is empty", async () => {
    const [ada, bob] = users as [number, number];
    const readers = [await open(ada), await open(bob)];
    await Promise.all(readers.map((reader) => reader.next()));
    feed.closeAll();
    await Promise.all(readers.map((reader) => reader.ended));
    expect(feed.subscriberCount()).toBe(0);
  });
});
