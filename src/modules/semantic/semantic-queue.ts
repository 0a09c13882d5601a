/** How note writers and searches reach the job queue; implemented in jobs/. One embedding job per user at a time. */
export interface SemanticQueue {
  /**
   * Queues the user's embedding job shortly after now; a job already queued keeps its time, so a
   * stream of writes (or a reader asking again and again) never delays it past that.
   */
  enqueueEmbedding(userId: number): Promise<void>;
}

export const semanticJobKey = (userId: number) => `semantic:${userId}`;
