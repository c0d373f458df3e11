/**
 * The job queue port: BullMQ on Redis at scale, an in-process queue by default. The projector uses it to run one
 * catch-up job per projection.
 *
 * Promises: a job added while another with the same `jobId` is waiting is not added twice (deduplication);
 * a failing job is retried with exponential backoff up to `attempts` times and then left failed and reported
 * through `onFailed`; `close()` stops taking jobs and waits for the running ones.
 * Does not promise: exactly-once execution. A job may run again after a crash, so handlers are idempotent.
 */
export interface RetryPolicy {
  attempts: number;
  /** First backoff delay in milliseconds; doubled on every further attempt. */
  backoffMs: number;
}

export interface JobQueue {
  /** Adds a job unless one with the same id is already waiting. */
  add(name: string, jobId: string): Promise<void>;
  /** Starts processing; `handler` receives the job's name. */
  process(handler: (name: string) => Promise<void>): void;
  onFailed(listener: (name: string, error: Error, attemptsMade: number) => void): void;
  /** Jobs waiting or delayed (for metrics). */
  depth(): Promise<number>;
  /** Whether the queue's server is connected now (an in-process queue always is): what the projector's health says. */
  reachable(): boolean;
  close(): Promise<void>;
}
