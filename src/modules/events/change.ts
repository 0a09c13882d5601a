import { z } from "zod";

/** The Postgres channel every process NOTIFYs and every API process LISTENs on. */
export const CHANGES_CHANNEL = "rhizome_changes";

/** The events other systems can subscribe to (webhooks); each is one moment of a change below. */
export const EVENT_TYPES = [
  "note.created",
  "note.updated",
  "note.deleted",
  "task.completed",
  "task.failed",
  "graph.build.completed",
  "graph.build.failed",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * What an outside system is told about a change: its type and, when the writer has it at hand,
 * its data (else the outlet reads the thing's current state, as streams do).
 */
export interface ChangeEvent {
  type: EventType;
  data?: Record<string, unknown>;
}

/**
 * Something of one user's changed; streams read its current state from libSQL. `event` marks the
 * changes other systems hear of too (a task ending, a note written); progress steps carry none.
 */
export type Change = ({ userId: number; kind: "task"; id: number } | { userId: number; kind: "graph" } | { userId: number; kind: "note"; id: number }) & {
  event?: ChangeEvent;
};

/** What a process tells the others that something changed; never throws (see createChangePublisher). */
export interface ChangePublisher {
  publish(change: Change): Promise<void>;
}

/** An outlet of change events beside the streams: webhooks (modules/webhooks/outlet.ts), search by meaning (modules/semantic/embedding-outlet.ts). */
export interface ChangeEventOutlet {
  /** For the log: what could not be told. */
  readonly name: string;
  /** Records the event durably for delivery; may throw (the publisher logs it). */
  emit(userId: number, event: ChangeEvent, subject: { kind: Change["kind"]; id?: number }): Promise<void>;
}

const id = z.number().int().positive();
// Short keys: pg_notify payloads are limited to 8000 bytes, and these are sent on every progress step.
const notification = z.discriminatedUnion("k", [
  z.object({ u: id, k: z.literal("task"), id }),
  z.object({ u: id, k: z.literal("graph") }),
]);

/** `{"u":1,"k":"task","id":5}` or `{"u":1,"k":"graph"}`. */
export function encodeChange(change: Change & { kind: "task" | "graph" }): string {
  return JSON.stringify(change.kind === "task" ? { u: change.userId, k: change.kind, id: change.id } : { u: change.userId, k: change.kind });
}

/** Null for a payload this version does not understand (another version's process, a hand-made NOTIFY). */
export function parseChange(payload: string): Change | null {
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch {
    return null;
  }
  const parsed = notification.safeParse(json);
  if (!parsed.success) return null;
  const { u: userId, ...rest } = parsed.data;
  return rest.k === "task" ? { userId, kind: "task", id: rest.id } : { userId, kind: "graph" };
}
