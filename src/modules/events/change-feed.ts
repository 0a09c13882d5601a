import type { Database } from "../../db/client";
import { log } from "../../log";
import type { ExtractorSettings } from "../graph/create-extractor";
import type { Change } from "./change";
import { systemClock, type Clock } from "./coalescer";
import { credentialKey, liveCredentials, type StreamCredential } from "./stream-credential";
import { UserChannel, type StreamSink } from "./user-channel";

export const KEEP_ALIVE_MS = 15_000;

/**
 * This process's fan-out: changes heard on the one LISTEN connection go to the channel of their
 * user, which reads them once for all of that user's open streams; a change of a user with no open
 * stream here costs nothing. One keep-alive timer serves every stream, and runs only while there
 * are any; at each keep-alive the credentials that opened the streams are read again, and a stream
 * whose session was logged out or whose token was revoked or expired, by any process, is ended.
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
  /** What opened each stream. */
  readonly #credentials = new Map<StreamSink, StreamCredential>();
  #checkingCredentials = false;

  constructor(options: { db: Database; graphSettings: ExtractorSettings; keepAliveMs?: number; clock?: Clock }) {
    this.#db = options.db;
    this.#graphSettings = options.graphSettings;
    this.#keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_MS;
    this.#clock = options.clock;
  }

  /**
   * Adds a stream (it is sent the current graph status), to live as long as `credential` stands;
   * returns the function that removes it, harmless to call twice.
   */
  subscribe(userId: number, sink: StreamSink, credential: StreamCredential): () => void {
    let channel = this.#channels.get(userId);
    if (!channel) this.#channels.set(userId, (channel = new UserChannel(this.#db, userId, this.#graphSettings, this.#clock)));
    const joined = channel;
    this.#total++;
    this.#credentials.set(sink, credential);
    if (this.#keepAlive === undefined) this.#scheduleKeepAlive();
    void joined.join(sink);
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      joined.leave(sink);
      this.#credentials.delete(sink);
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
      void this.#endStreamsOfEndedCredentials();
      // A sink that failed its write left the feed; with none left, the timer stops here.
      if (this.#total > 0 && this.#keepAlive === undefined) this.#scheduleKeepAlive();
    }, this.#keepAliveMs);
  }

  /** One check at a time: a slow database skips a round rather than piling reads up. */
  async #endStreamsOfEndedCredentials(): Promise<void> {
    if (this.#checkingCredentials || this.#credentials.size === 0) return;
    this.#checkingCredentials = true;
    try {
      const open = [...this.#credentials];
      const live = await liveCredentials(this.#db, open.map(([, credential]) => credential));
      for (const [sink, credential] of open) if (!live.has(credentialKey(credential))) sink.close();
    } catch (error) {
      log.warn("could not read the credentials of the open event streams; trying again at the next keep-alive", error);
    } finally {
      this.#checkingCredentials = false;
    }
  }

  #eachSink(action: (sink: StreamSink) => void): void {
    for (const channel of [...this.#channels.values()]) for (const sink of [...channel.sinks]) action(sink);
  }
}
