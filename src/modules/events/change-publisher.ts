import { log } from "../../log";
import { CHANGES_CHANNEL, encodeChange, type Change, type ChangeEventOutlet, type ChangePublisher } from "./change";

/** A NOTIFY slower than this is given up on: progress must never wait on the news of it. */
const PUBLISH_TIMEOUT_MS = 2_000;

/**
 * The one source of change events, with two outlets. Every change of a task or graph build tells
 * every API process (through Postgres NOTIFY on the queue's database), for their open streams;
 * a change that carries an `event` is also handed to `outlet` (webhooks), which queues it for
 * delivery. Call it after the change is written. A failure is logged, never thrown: an import, a
 * build or a note write must not fail because a stream or a webhook could not be told.
 */
export function createChangePublisher(notify: (channel: string, payload: string) => Promise<void>, outlet?: () => ChangeEventOutlet | undefined): ChangePublisher {
  async function toStreams(change: Change & { kind: "task" | "graph" }) {
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
  }

  async function toOutlet(change: Change) {
    const target = change.event && outlet?.();
    if (!target || !change.event) return;
    try {
      await target.emit(change.userId, change.event, { kind: change.kind, ...("id" in change ? { id: change.id } : {}) });
    } catch (error) {
      log.warn(`could not queue the ${change.event.type} event of user ${change.userId} for its webhooks`, error);
    }
  }

  return {
    async publish(change: Change) {
      // Streams show tasks and builds; notes have no stream event (the contract's SSE kinds), only webhooks.
      await Promise.all([change.kind === "note" ? undefined : toStreams(change), toOutlet(change)]);
    },
  };
}
