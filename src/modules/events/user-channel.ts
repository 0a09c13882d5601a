import { and, desc, eq, getTableColumns, gte, inArray, or, type SQL } from "drizzle-orm";
import { importTasks } from "../../db/schema";
import type { Database } from "../../db/client";
import type { ExtractorSettings } from "../graph/create-extractor";
import { log } from "../../log";
import { getBuildStatus } from "../graph/get-build-status";
import { toTaskRecord } from "../imports/task-record";
import type { Change } from "./change";
import { Coalescer, type Clock } from "./coalescer";

/** At most 4 events a second per kind (tasks: one flush of every changed task per slot). */
export const COALESCE_MS = 250;
/** After a lost LISTEN connection, how many recently changed tasks are sent again at most. */
const MISSED_TASKS_LIMIT = 100;

/** One open stream, as its user's channel sees it. */
export interface StreamSink {
  /** `data` is the event's JSON, serialised once for all of the user's streams. */
  send(event: "graph" | "task", data: string): void;
  keepAlive(): void;
  close(): void;
}

/**
 * The streams of one user in this process, and the reads that feed them: each change is read
 * from the database once, coalesced to one read per kind per 250 ms, and the same serialised
 * event goes to all of the user's streams, however many there are.
 */
export class UserChannel {
  readonly sinks = new Set<StreamSink>();
  /** Graph reads are numbered as they start; a stream is never sent an older read after a newer one. */
  #graphReads = 0;
  readonly #lastGraphRead = new WeakMap<StreamSink, number>();
  readonly #changedTasks = new Set<number>();
  #missedSince: number | null = null;
  readonly #graph: Coalescer;
  readonly #tasks: Coalescer;

  constructor(
    private readonly db: Database,
    private readonly userId: number,
    /** The build status names the extractor and model. */
    private readonly graphSettings: ExtractorSettings,
    clock?: Clock,
  ) {
    const onError = (error: unknown) => log.warn(`events of user ${userId}: could not read a change; retrying`, error);
    this.#graph = new Coalescer(() => this.#readGraph([...this.sinks]), { intervalMs: COALESCE_MS, clock, onError });
    this.#tasks = new Coalescer(() => this.#readTasks(), { intervalMs: COALESCE_MS, clock, onError });
  }

  /** Adds a stream and sends it the current graph status. */
  async join(sink: StreamSink): Promise<void> {
    this.sinks.add(sink);
    try {
      await this.#readGraph([sink]);
    } catch (error) {
      log.warn(`events of user ${this.userId}: could not read the graph status for a new stream`, error);
      this.#graph.request();
    }
  }

  leave(sink: StreamSink): void {
    this.sinks.delete(sink);
  }

  changed(change: Change): void {
    if (change.kind === "graph") return this.#graph.request();
    if (change.kind !== "task") return; // notes have no stream event
    this.#changedTasks.add(change.id);
    this.#tasks.request();
  }

  /** Changes since `since` may have gone unheard: read the graph status and those tasks again. */
  missed(since: number): void {
    this.#missedSince = Math.min(this.#missedSince ?? since, since);
    this.#graph.request();
    this.#tasks.request();
  }

  stop(): void {
    this.#graph.stop();
    this.#tasks.stop();
  }

  async #readGraph(sinks: StreamSink[]): Promise<void> {
    const read = ++this.#graphReads;
    const data = JSON.stringify(await getBuildStatus({ ctx: { db: this.db, userId: this.userId, graphSettings: this.graphSettings } }));
    for (const sink of sinks) {
      if (!this.sinks.has(sink) || (this.#lastGraphRead.get(sink) ?? 0) > read) continue;
      this.#lastGraphRead.set(sink, read);
      sink.send("graph", data);
    }
  }

  async #readTasks(): Promise<void> {
    const ids = [...this.#changedTasks];
    const since = this.#missedSince;
    const records = await readTasks(this.db, this.userId, ids, since);
    for (const id of ids) this.#changedTasks.delete(id);
    if (this.#missedSince === since) this.#missedSince = null;
    for (const record of records) {
      const data = JSON.stringify(record);
      for (const sink of this.sinks) sink.send("task", data);
    }
  }
}

/** The user's tasks among `ids`, and those changed since `since` when news may have been lost; oldest change first. */
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
