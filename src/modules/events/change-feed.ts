import type { Database } from "../../db/client";
import type { ExtractorSettings } from "../graph/create-extractor";
import type { Change } from "./change";
import { systemClock, type Clock } from "./coalescer";
import { UserChannel, type StreamSink } from "./user-channel";

export const KEEP_ALIVE_MS = 15_000;

/**
 * This process's fan-out: changes heard on the one LISTEN connection go to the channel of their
 * user, which reads them once for all of that user's open streams; a change of a user with no open
 * stream here costs nothing. One keep-alive timer serves every stream, and runs only while there
 * are any.
 */
export class ChangeFeed {
  readonly #channels = new Map<number, UserChannel>();
  #total = 0;
  /** The timer of the next keep-alive; set only while a stream is open. */
  #keepAlive: unknown;
  readonly #db: Database;
  readonly #graphSettings: ExtractorSettings;
  readonly #keepAliveMs: number;
  readonly #clock?: Clock;

  constructor(options: { db: Database; graphSettings: ExtractorSettings; keepAliveMs?: number; clock?: Clock }) {
    this.#db = options.db;
    this.#graphSettings = options.graphSettings;
    this.#keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_MS;
    this.#clock = options.clock;
  }

  /** Adds a stream (it is sent the current graph status); returns the function that removes it, harmless to call twice. */
  subscribe(userId: number, sink: StreamSink): () => void {
    let channel = this.#channels.get(userId);
    if (!channel) this.#channels.set(userId, (channel = new UserChannel(this.#db, userId, this.#graphSettings, this.#clock)));
    const joined = channel;
    this.#total++;
    if (this.#keepAlive === undefined) this.#scheduleKeepAlive();
    void joined.join(sink);
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      joined.leave(sink);
      if (joined.sinks.size === 0) {
        joined.stop();
        this.#channels.delete(userId);
      }
      if (--this.#total === 0) {
        this.#timers.clearTimeout(this.#keepAlive);
        this.#keepAlive = undefined;
      }
    };
  }

  /** Open streams of one user, or of everyone. */
  subscriberCount(userId?: number): number {
    return userId === undefined ? this.#total : (this.#channels.get(userId)?.sinks.size ?? 0);
  }

  deliver(change: Change): void {
    this.#channels.get(change.userId)?.changed(change);
  }

  /** News since `since` may have been lost (the LISTEN connection dropped): every stream reads again. */
  missed(since: number): void {
    for (const channel of this.#channels.values()) channel.missed(since);
  }

  closeAll(): void {
    this.#eachSink((sink) => sink.close());
  }

  get #timers(): Clock {
    return this.#clock ?? systemClock;
  }

  #scheduleKeepAlive(): void {
    this.#keepAlive = this.#timers.setTimeout(() => {
      this.#keepAlive = undefined;
      this.#eachSink((sink) => sink.keepAlive());
      // A sink that failed its write left the feed; with none left, the timer stops here.
      if (this.#total > 0 && this.#keepAlive === undefined) this.#scheduleKeepAlive();
    }, this.#keepAliveMs);
  }

  #eachSink(action: (sink: StreamSink) => void): void {
    for (const channel of [...this.#channels.values()]) for (const sink of [...channel.sinks]) action(sink);
  }
}
