/** How note writers and searches reach the job queue; implemented in jobs/. One embedding job per user at a time. */
export interface SemanticQueue {
  /** Queues (or pushes back, debouncing a burst of writes) the user's embedding job. */
  enqueueEmbedding(userId: number): Promise<void>;
}

export const semanticJobKey = (userId: number) => `semantic:${userId}`;
