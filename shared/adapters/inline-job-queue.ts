/**
 * The in-process job queue (the embedded default). Jobs with different ids run concurrently; jobs with one id never
 * do. Adding a job whose id is waiting (or delayed for a retry) does nothing; adding one whose id is running
 * queues a single follow-up run after it, so a signal that arrives mid-run is not lost. Nothing survives the
 * process: the projector's start-up catch-up covers what a stop left undone.
 */
import type { JobQueue, RetryPolicy } from '../ports/job-queue.ts';

type Handler = (name: string) => Promise<void>;
type FailedListener = (name: string, error: Error, attemptsMade: number) => void;

interface Job {
  name: string;
  state: 'waiting' | 'delayed' | 'running';
  attemptsMade: number;
  /** The name of a run asked for while this one was running. */
  followUp?: string;
  timer?: NodeJS.Timeout;
}

export function createInlineJobQueue(policy: RetryPolicy): JobQueue {
  const jobs = new Map<string, Job>();
  const running = new Set<Promise<void>>();
  const failedListeners: FailedListener[] = [];
  let handler: Handler | undefined;
  let closed = false;

  const start = (jobId: string, job: Job): void => {
    if (!handler || closed) return;
    job.state = 'running';
    const run = attempt(jobId, job, handler).finally(() => running.delete(run));
    running.add(run);
  };

  const attempt = async (jobId: string, job: Job, handle: Handler): Promise<void> => {
    job.attemptsMade++;
    try {
      await handle(job.name);
    } catch (thrown) {
      const error = thrown instanceof Error ? thrown : new Error(String(thrown));
      // A stopping queue neither retries nor reports: the job was not given all its attempts.
      if (closed) return finish(jobId, job);
      if (job.attemptsMade < policy.attempts) {
        job.state = 'delayed';
        job.timer = setTimeout(() => start(jobId, job), policy.backoffMs * 2 ** (job.attemptsMade - 1));
        return;
      }
      for (const listener of failedListeners) listener(job.name, error, job.attemptsMade);
    }
    finish(jobId, job);
  };

  const finish = (jobId: string, job: Job): void => {
    jobs.delete(jobId);
    if (job.followUp !== undefined && !closed) enqueue(job.followUp, jobId);
  };

  const enqueue = (name: string, jobId: string): void => {
    const job: Job = { name, state: 'waiting', attemptsMade: 0 };
    jobs.set(jobId, job);
    // Run on a later turn, so `add` returns first, as it does with a real queue.
    setImmediate(() => {
      if (job.state === 'waiting') start(jobId, job);
    });
  };

  return {
    async add(name, jobId) {
      if (closed) return;
      const job = jobs.get(jobId);
      if (!job) enqueue(name, jobId);
      else if (job.state === 'running') job.followUp = name;
    },
    process(handle) {
      if (handler) throw new Error('this queue already has a handler');
      handler = handle;
      for (const [jobId, job] of jobs) if (job.state === 'waiting') start(jobId, job);
    },
    onFailed(listener) {
      failedListeners.push(listener);
    },
    async depth() {
      let count = 0;
      for (const job of jobs.values()) {
        if (job.state !== 'running') count++;
        if (job.followUp !== undefined) count++;
      }
      return count;
    },
    reachable: () => true,
    async close() {
      closed = true;
      for (const job of jobs.values()) clearTimeout(job.timer);
      await Promise.all(running);
    },
  };
}
