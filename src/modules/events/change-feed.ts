import type { Change } from "./change";

/** One open stream, as the feed sees it. */
export interface ChangeSubscriber {
  changed(change: Change): void;
  /** Changes since this time (ms) may have gone unheard (the LISTEN connection dropped): read again. */
  missed(since: number): void;
  /** Writes the keep-alive comment. */
  keepAlive(): void;
  /** The server is shutting down: end the stream. */
  close(): void;
}

export const KEEP_ALIVE_MS = 15_000;

/**
 * This process's fan-out: changes heard on the one LISTEN connection go to the open streams of
 * their user only. One keep-alive timer serves every stream, and runs only while there are any.
 */
export class ChangeFeed {
  readonly #byUser = new Map<number, Set<ChangeSubscriber>>();
  #total = 0;
  #keepAlive: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly keepAliveMs = KEEP_ALIVE_MS) {}

  /** Returns the unsubscribe function; calling it twice is harmless. */
  subscribe(userId: number, subscriber: ChangeSubscriber): () => void {
    let subscribers = this.#byUser.get(userId);
    if (!subscribers) this.#byUser.set(userId, (subscribers = new Set()));
    subscribers.add(subscriber);
    this.#total++;
    this.#keepAlive ??= setInterval(() => this.#each((each) => each.keepAlive()), this.keepAliveMs);
    return () => {
      if (!subscribers.delete(subscriber)) return;
      if (subscribers.size === 0) this.#byUser.delete(userId);
      if (--this.#total === 0) {
        clearInterval(this.#keepAlive);
        this.#keepAlive = undefined;
      }
    };
  }

  /** Open streams of one user, or of everyone. */
  subscriberCount(userId?: number): number {
    return userId === undefined ? this.#total : (this.#byUser.get(userId)?.size ?? 0);
  }

  deliver(change: Change): void {
    for (const subscriber of this.#byUser.get(change.userId) ?? []) subscriber.changed(change);
  }

  missed(since: number): void {
    this.#each((subscriber) => subscriber.missed(since));
  }

  closeAll(): void {
    this.#each((subscriber) => subscriber.close());
  }

  #each(action: (subscriber: ChangeSubscriber) => void): void {
    for (const subscribers of [...this.#byUser.values()]) for (const subscriber of [...subscribers]) action(subscriber);
  }
}
