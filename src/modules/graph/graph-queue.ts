/** How the graph service reaches the job queue; implemented in jobs/. One build job per user at a time. */
export interface GraphQueue {
  enqueueBuild(build: { id: number; userId: number }): Promise<boolean>;
  /** The user's build job, if the queue still has one. */
  findBuildJob(userId: number): Promise<{ permanentlyFailed: boolean } | null>;
}

export const graphJobKey = (userId: number) => `graph:${userId}`;
