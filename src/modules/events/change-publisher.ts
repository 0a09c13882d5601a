import { log } from "../../log";
import { CHANGES_CHANNEL, encodeChange, type Change, type ChangeEventOutlet, type ChangePublisher } from "./change";

/** A NOTIFY slower than this is no longer waited for (it still goes out): progress must never wait on the news of it. */
const PUBLISH_TIMEOUT_MS = 2_000;

/**
 * The one source of change events, with its outlets. Every change of a task or graph build tells
 * every API process (through Postgres NOTIFY on the queue's database), for their open streams;
 * a change that carries an `event` is also handed to each of `outlets` (webhooks, which queue it
 * for delivery; search by meaning, which queues the embedding of a written note). Call it after
 * the change is written. A failure is logged, never thrown: an import, a build or a note write
 * must not fail because a stream or a webhook could not be told.
 */
export function createChangePublisher(notify: (channel: string, payloads: readonly string[]) => Promise<void>, outlets?: () => readonly ChangeEventOutlet[]): ChangePublisher {
  const send = batchedNotify((payloads) => notify(CHANGES_CHANNEL, payloads));

  async function toStreams(change: Change & { kind: "task" | "graph" }) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), PUBLISH_TIMEOUT_MS);
    });
    try {
      // A late statement still goes out when the database answers: the streams hear of the change late, not never.
      if ((await Promise.race([send(encodeChange(change)), late])) === "late") {
        log.warn(`the news of a ${change.kind} change of user ${change.userId} has waited ${PUBLISH_TIMEOUT_MS} ms for the queue's database; open streams hear of it late`);
      }
    } catch (error) {
      log.warn(`could not publish a ${change.kind} change of user ${change.userId}; open streams miss it`, error);
    } finally {
      clearTimeout(timer);
    }
  }

  async function toOutlet(target: ChangeEventOutlet, change: Change) {
    if (!change.event) return;
    try {
      await target.emit(change.userId, change.event, { kind: change.kind, ...("id" in change ? { id: change.id } : {}) });
    } catch (error) {
      log.warn(`could not hand the ${change.event.type} event of user ${change.userId} to ${target.name}`, error);
    }
  }

  return {
    async publish(change: Change) {
      // Streams show tasks and builds; notes have no stream event (the contract's SSE kinds), only outlets.
      await Promise.all([change.kind === "note" ? undefined : toStreams(change), ...(change.event ? (outlets?.() ?? []).map((target) => toOutlet(target, change)) : [])]);
    },
  };
}

/**
 * One NOTIFY statement in flight at a time, carrying every payload published while the one before
 * was on its way (the same payload once: listeners read the current state anyway). A statement per
 * change took a pool connection each, and under load (an import's progress steps, hundreds of
 * clients) those crowded out the queue's own work until enqueueing timed out (bench:soak's 503s).
 * A statement that hangs holds up the next batch for PUBLISH_TIMEOUT_MS at most.
 */
export function batchedNotify(notify: (payloads: readonly string[]) => Promise<void>): (payload: string) => Promise<void> {
  let pending: { payloads: Set<string>; sent: Promise<void> } | undefined;
  let inFlight: Promise<unknown> = Promise.resolve();
  return (payload) => {
    if (!pending) {
      const batch: { payloads: Set<string>; sent: Promise<void> } = { payloads: new Set(), sent: Promise.resolve() };
      batch.sent = inFlight.then(() => {
        pending = undefined; // what is published from now on waits for the next statement
        return notify([...batch.payloads]);
      });
      inFlight = Promise.race([batch.sent, Bun.sleep(PUBLISH_TIMEOUT_MS)]).catch(() => undefined);
      pending = batch;
    }
    pending.payloads.add(payload);
    return pending.sent;
  };
}
