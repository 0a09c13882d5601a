import { and, eq, inArray, isNotNull, sum } from "drizzle-orm";
import type { Database } from "../../db/client";
import { importTasks } from "../../db/schema";
import { TooManyRequestsError } from "../errors";

/** UPLOADS_PENDING_MAX_MB's default: 1 GiB of uploads waiting for their tasks, per user. */
export const UPLOADS_PENDING_DEFAULT_MB = 1024;
/** How soon a refused uploader may try again: about when a waiting task of theirs may have ended. */
const RETRY_AFTER_SECONDS = 60;

/** One upload as it arrives: what it may take against its user's cap. */
export interface UploadRoom {
  /** `received` bytes have arrived; throws the 429 once they would take the user past the cap. */
  grow(received: number): void;
  /** The whole upload is in: checked once more against what waits now (another upload may have become a task meanwhile). */
  confirm(bytes: number): Promise<void>;
  /** Its bytes stop counting here: it became a task (whose row counts them) or it was refused. */
  close(): void;
}

/**
 * CONTRACT "Transcripts": uploads waiting for their task (recordings, archives) count against their
 * user, at most UPLOADS_PENDING_MAX_MB. Those that became tasks are counted from their rows (until
 * the task ends and deletes them); those still arriving in this process, from their rooms here.
 */
export class PendingUploads {
  readonly #arriving = new Map<number, Map<symbol, number>>();

  constructor(
    private readonly db: Database,
    readonly maxBytes: number,
  ) {}

  /**
   * Opens room for an upload of `declared` bytes (its Content-Length; null when it streams without
   * one): a 429 at once when it would take the user's waiting uploads past the cap.
   */
  async open(userId: number, declared: number | null): Promise<UploadRoom> {
    let waiting = await this.#waiting(userId);
    const key = Symbol("upload");
    const rooms = this.#arriving.get(userId) ?? new Map<symbol, number>();
    this.#arriving.set(userId, rooms);
    const claim = (bytes: number) => {
      const before = rooms.get(key) ?? 0;
      rooms.set(key, Math.max(before, bytes));
      if (waiting + [...rooms.values()].reduce((total, room) => total + room, 0) > this.maxBytes) throw this.#refusal();
    };
    const close = () => {
      rooms.delete(key);
      if (rooms.size === 0 && this.#arriving.get(userId) === rooms) this.#arriving.delete(userId);
    };
    try {
      claim(declared ?? 0);
    } catch (error) {
      close();
      throw error;
    }
    return {
      grow: claim,
      confirm: async (bytes) => {
        waiting = await this.#waiting(userId);
        claim(bytes);
      },
      close,
    };
  }

  /** Bytes of the user's uploads whose tasks have not ended (an ended task has deleted its upload). */
  async #waiting(userId: number): Promise<number> {
    const [row] = await this.db
      .select({ bytes: sum(importTasks.uploadBytes).mapWith(Number) })
      .from(importTasks)
      .where(and(eq(importTasks.userId, userId), inArray(importTasks.status, ["pending", "running"]), isNotNull(importTasks.uploadBytes)));
    return row?.bytes ?? 0;
  }

  #refusal(): TooManyRequestsError {
    return new TooManyRequestsError(
      `Your uploads waiting for their tasks would pass ${formatMiB(this.maxBytes)} (UPLOADS_PENDING_MAX_MB); try again once some of those tasks have finished`,
      RETRY_AFTER_SECONDS,
    );
  }
}

const formatMiB = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

/** Runs `save` (stream the upload, make it a task) with room open for it, closed whatever happens. */
export async function withUploadRoom<T>(ctx: { userId: number; pendingUploads: PendingUploads }, declared: number | null, save: (room: UploadRoom) => Promise<T>): Promise<T> {
  const room = await ctx.pendingUploads.open(ctx.userId, declared);
  try {
    return await save(room);
  } finally {
    room.close();
  }
}
