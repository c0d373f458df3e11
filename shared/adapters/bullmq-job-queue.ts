/**
 * The BullMQ job queue (at scale, `REDIS_URL`), shared by every projector process. Deduplication uses BullMQ's
 * deduplication id rather than a fixed job id: a job whose id is waiting or delayed is not added twice, and one
 * added while that id is running is kept as a single follow-up started when the run ends (`keepLastIfActive`),
 * so a signal is never lost to a running job and one id never runs twice at once. Job ids stay unique, so neither
 * a completed nor a kept failed job blocks adding that id again.
 * `close()` lets the running jobs finish; a job cut off by a hard stop is found stalled and run again.
 */
import { Queue, Worker, type JobsOptions } from 'bullmq';
import type { JobQueue, RetryPolicy } from '../ports/job-queue.ts';
import { createRedisClient } from './redis-connection.ts';

interface BullMqJobQueueOptions {
  redisUrl: string;
  queueName: string;
  policy: RetryPolicy;
  /** Jobs this process runs at once (of different ids). Default 1. */
  concurrency?: number;
  /** Redis and worker errors (BullMQ and ioredis keep retrying); ignored when not given. */
  onError?: (error: Error) => void;
}

/**
 * A worker killed mid-job (SIGKILL, OOM) holds its job's lock until the lock expires; only then is the job found
 * stalled and run by another worker, and meanwhile that projection's follow-up waits behind it. BullMQ's defaults
 * (30 s lock, 30 s check) left a projection a minute behind after one killed worker (scale-topology test); a
 * running job renews its lock every half lock, so a shorter one costs only those renewals.
 */
const STALL_DETECTION = { lockDuration: 10_000, stalledInterval: 5_000 };

/** Failed jobs are kept a day for inspection (at most a thousand). */
const KEEP_FAILED = { age: 24 * 3600, count: 1000 };

export function createBullMqJobQueue(options: BullMqJobQueueOptions): JobQueue {
  const { redisUrl, queueName, policy } = options;
  const connection = createRedisClient(redisUrl, 'bullmq');
  const queue = new Queue(queueName, { connection });
  const onError = options.onError ?? (() => {});
  queue.on('error', onError);
  const failedListeners: ((name: string, error: Error, attemptsMade: number) => void)[] = [];
  let worker: Worker | undefined;

  const jobOptions = (jobId: string): JobsOptions => ({
    deduplication: { id: jobId, keepLastIfActive: true },
    attempts: policy.attempts,
    backoff: { type: 'exponential', delay: policy.backoffMs },
    removeOnComplete: true,
    removeOnFail: KEEP_FAILED,
  });

  return {
    async add(name, jobId) {
      await queue.add(name, {}, jobOptions(jobId));
    },
    process(handler) {
      if (worker) throw new Error('this queue already has a handler');
      worker = new Worker(queueName, (job) => handler(job.name), { connection, concurrency: options.concurrency ?? 1, ...STALL_DETECTION });
      worker.on('failed', (job, error) => {
        // Only the last attempt is a failure to report; earlier ones are retried.
        if (!job || job.attemptsMade < policy.attempts) return;
        for (const listener of failedListeners) listener(job.name, error, job.attemptsMade);
      });
      worker.on('error', onError);
    },
    onFailed(listener) {
      failedListeners.push(listener);
    },
    async depth() {
      const counts = await queue.getJobCounts('waiting', 'delayed', 'prioritized');
      return (counts['waiting'] ?? 0) + (counts['delayed'] ?? 0) + (counts['prioritized'] ?? 0);
    },
    reachable: () => connection.status === 'ready',
    async close() {
      await worker?.close();
      await queue.close();
      connection.disconnect();
    },
  };
}
