import type { z } from "zod";
import type { JobLog } from "./log";

/** What a handler gets besides its payload. */
export interface TaskHelpers {
  jobId: string;
  /** 1 on the first run; a run cut short by a crash or a forced shutdown counts too. */
  attempts: number;
  maxAttempts: number;
  /** Fires on graceful shutdown: pass it to fetch and LLM calls (RELIABILITY 5.4). */
  signal: AbortSignal;
  log: JobLog;
}

/**
 * One kind of background job. Delivery is at least once, so `handler` must be idempotent: a crash after its
 * effect but before the job is marked done runs it again. Throwing retries it after graphile-worker's
 * backoff of exp(min(attempt, 10)) seconds (2.7 s, 7.4 s, 20 s, ... then 6 h each), up to `maxAttempts`.
 */
export interface TaskDefinition<Name extends string = string, Payload extends z.ZodType = z.ZodType> {
  readonly name: Name;
  /** Parsed before queueing and again before the handler runs; must accept its own input after a JSON round trip. */
  readonly payload: Payload;
  /** Including the first run; set it per task so a doomed job stops early (RELIABILITY 5.2). */
  readonly maxAttempts: number;
  /**
   * A cron time pattern in UTC (e.g. `0 * * * *`): running workers then queue the task with an empty payload at
   * those times, once per tick however many workers run, and never for ticks missed while none ran.
   */
  readonly schedule?: string;
  /**
   * Jobs of this task wait in graphile-worker's named queue of this name, which runs one job at a time
   * across every worker: for work that funnels into one resource (the OCR process) and would otherwise
   * hold several of a worker's slots waiting for it.
   */
  readonly serialQueue?: string;
  handler(payload: z.output<Payload>, helpers: TaskHelpers): Promise<void>;
  /** Runs once when the last attempt fails (or its worker died during it), e.g. to mark a status row failed. */
  onPermanentFailure?(payload: z.output<Payload>, error: Error): Promise<void>;
}

export type AnyTask = TaskDefinition<string, z.ZodType>;

const TASK_NAME = /^[A-Za-z][\w.:-]{0,99}$/;

export function defineTask<const Name extends string, Payload extends z.ZodType>(
  task: TaskDefinition<Name, Payload>,
): TaskDefinition<Name, Payload> {
  if (!TASK_NAME.test(task.name)) throw new Error(`task name ${JSON.stringify(task.name)} must match ${TASK_NAME}`);
  assertMaxAttempts(task.maxAttempts, task.name);
  if (task.schedule !== undefined && !task.payload.safeParse({}).success) {
    throw new Error(`task ${task.name} has a schedule, so its payload schema must accept {}`);
  }
  return task;
}

/** graphile-worker stores attempts as a smallint. */
export function assertMaxAttempts(maxAttempts: number, taskName: string): void {
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > 32_767) {
    throw new Error(`maxAttempts of task ${taskName} must be an integer from 1 to 32767, got ${maxAttempts}`);
  }
}
