import { and, desc, eq, getTableColumns, gte, inArray, or, type SQL } from "drizzle-orm";
import { importTasks } from "../../db/schema";
import type { Database } from "../../db/client";
import { log } from "../../log";
import { getBuildStatus } from "../graph/get-build-status";
import { toTaskRecord } from "../imports/task-record";
import type { ChangeFeed, ChangeSubscriber } from "./change-feed";
import { Coalescer, type Clock } from "./coalescer";

/** At most 4 events a second per kind (tasks: one flush of every changed task per slot). */
export const COALESCE_MS = 250;
/** Chunks a client may leave unread before its stream is ended (it is not reading, or far too slowly). */
const MAX_UNREAD_CHUNKS = 1_000;
/** After a lost LISTEN connection, how many recently changed tasks are sent again at most. */
const MISSED_TASKS_LIMIT = 100;

const encoder = new TextEncoder();

/**
 * One user's `text/event-stream`: `graph` (the build status, first right after connecting) and
 * `task` (a task record) events, each read from the database when the feed says it changed, so the
 * event always carries the newest state; every event has an increasing `id:`. The stream ends
 * when the client goes away (`signal`), and then leaves the feed.
 */
export function openEventStream({
  ctx,
  feed,
  signal,
  clock,
}: {
  ctx: { db: Database; userId: number };
  feed: ChangeFeed;
  signal: AbortSignal;
  clock?: Clock;
}): Response {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let lastId = 0;
  let closed = false;
  const write = (text: string) => {
    if (closed) return;
    try {
      controller.enqueue(encoder.encode(text));
    } catch {
      return stop(); // the client went away and the stream is already closed
    }
    if ((controller.desiredSize ?? 0) < -MAX_UNREAD_CHUNKS) {
      log.warn(`closing the event stream of user ${ctx.userId}: the client is not reading it`);
      end();
    }
  };
  const send = (event: "graph" | "task", data: unknown) => write(`id: ${++lastId}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const onError = (error: unknown) => log.warn(`event stream of user ${ctx.userId}: could not read a change; retrying`, error);

  const graph = new Coalescer(async () => send("graph", await getBuildStatus({ ctx })), { intervalMs: COALESCE_MS, clock, onError });
  const changedTasks = new Set<number>();
  let missedSince: number | null = null;
  const tasks = new Coalescer(
    async () => {
      const ids = [...changedTasks];
      const since = missedSince;
      const records = await readTasks(ctx.db, ctx.userId, ids, since);
      for (const id of ids) changedTasks.delete(id);
      if (missedSince === since) missedSince = null;
      for (const record of records) send("task", record);
    },
    { intervalMs: COALESCE_MS, clock, onError },
  );

  const subscriber: ChangeSubscriber = {
    changed(change) {
      if (change.kind === "graph") return graph.request();
      changedTasks.add(change.id);
      tasks.request();
    },
    missed(since) {
      missedSince = Math.min(missedSince ?? since, since);
      graph.request();
      tasks.request();
    },
    keepAlive: () => write(": keep-alive\n\n"),
    close: () => end(),
  };
  let unsubscribe = () => {};
  const stop = () => {
    if (closed) return;
    closed = true;
    unsubscribe();
    graph.stop();
    tasks.stop();
    signal.removeEventListener("abort", stop);
  };
  function end() {
    if (closed) return;
    stop();
    try {
      controller.close();
    } catch {
      // already closed or cancelled by the client
    }
  }

  const body = new ReadableStream<Uint8Array>({
    start(started) {
      controller = started;
      if (signal.aborted) return void stop();
      signal.addEventListener("abort", stop);
      // Subscribe before the first read, so a change made meanwhile is sent again rather than lost.
      unsubscribe = feed.subscribe(ctx.userId, subscriber);
      graph.request();
    },
    cancel: stop,
  });
  return new Response(body, {
    status: 200,
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-store",
      // Proxies such as nginx would otherwise buffer the stream.
      "X-Accel-Buffering": "no",
    },
  });
}

/** The user's tasks among `ids`, and those changed since `since` when news may have been lost; oldest first. */
async function readTasks(db: Database, userId: number, ids: number[], since: number | null) {
  const which: SQL[] = [];
  if (ids.length > 0) which.push(inArray(importTasks.id, ids));
  if (since !== null) which.push(gte(importTasks.updatedAt, since));
  if (which.length === 0) return [];
  const { content: _content, ...columns } = getTableColumns(importTasks);
  const rows = await db
    .select(columns)
    .from(importTasks)
    .where(and(eq(importTasks.userId, userId), or(...which)))
    .orderBy(desc(importTasks.updatedAt), desc(importTasks.id))
    .limit(ids.length + (since === null ? 0 : MISSED_TASKS_LIMIT));
  return rows.reverse().map((row) => toTaskRecord({ ...row, content: null }));
}
