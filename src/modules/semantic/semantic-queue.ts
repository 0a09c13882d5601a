/** How note writers and searches reach the job queue; implemented in jobs/. One embedding job per user at a time. */
export interface SemanticQueue {
  /**
   * Queues the user's embedding job, pushing a queued one back (debouncing a burst of writes); with
   * `pushBack: false` a queued one keeps its time, so a reader asking again and again never delays it.
   */
  enqueueEmbedding(userId: number, options?: { pushBack?: boolean }): Promise<void>;
}

export const semanticJobKey = (userId: number) => `semantic:${userId}`;
