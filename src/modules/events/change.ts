import { z } from "zod";

/** The Postgres channel every process NOTIFYs and every API process LISTENs on. */
export const CHANGES_CHANNEL = "rhizome_changes";

/** Something of one user's changed; streams read its current state from libSQL. */
export type Change = { userId: number; kind: "task"; id: number } | { userId: number; kind: "graph" };

/** What a process tells the others that something changed; never throws (see createChangePublisher). */
export interface ChangePublisher {
  publish(change: Change): Promise<void>;
}

const id = z.number().int().positive();
// Short keys: pg_notify payloads are limited to 8000 bytes, and these are sent on every progress step.
const notification = z.discriminatedUnion("k", [
  z.object({ u: id, k: z.literal("task"), id }),
  z.object({ u: id, k: z.literal("graph") }),
]);

/** `{"u":1,"k":"task","id":5}` or `{"u":1,"k":"graph"}`. */
export function encodeChange(change: Change): string {
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
