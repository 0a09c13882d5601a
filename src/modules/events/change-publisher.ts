import { log } from "../../log";
import { CHANGES_CHANNEL, encodeChange, type Change, type ChangePublisher } from "./change";

/** A NOTIFY slower than this is given up on: progress must never wait on the news of it. */
const PUBLISH_TIMEOUT_MS = 2_000;

/**
 * Tells every API process (through Postgres NOTIFY on the queue's database) that one user's task or
 * graph build changed. Call it after the change is written. A failure is logged, never thrown: an
 * import or a build must not fail because a stream could not be told.
 */
export function createChangePublisher(notify: (channel: string, payload: string) => Promise<void>): ChangePublisher {
  return {
    async publish(change: Change) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${PUBLISH_TIMEOUT_MS} ms`)), PUBLISH_TIMEOUT_MS);
      });
      try {
        await Promise.race([notify(CHANGES_CHANNEL, encodeChange(change)), timeout]);
      } catch (error) {
        log.warn(`could not publish a ${change.kind} change of user ${change.userId}; open streams miss it`, error);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
