/** How the task service reaches the job queue; implemented in jobs/, so modules never import it. */
export interface ImportQueue {
  /** Queues the task's job under the key `import:<id>`; false when the queue could not take it now. */
  enqueueImport(task: { id: number; userId: number }): Promise<boolean>;
  /** The task's job, if the queue still has one (`permanentlyFailed`: out of attempts, will not run). */
  findImportJob(taskId: number): Promise<{ permanentlyFailed: boolean } | null>;
  /** Queues the task's transcription job (`transcribe:<id>`), once its import has fetched the page. */
  enqueueTranscription?(task: { id: number; userId: number }): Promise<boolean>;
  findTranscriptionJob?(taskId: number): Promise<{ permanentlyFailed: boolean } | null>;
}

export const transcriptionJobKey = (taskId: number) => `transcribe:${taskId}`;

export const importJobKey = (taskId: number) => `import:${taskId}`;
