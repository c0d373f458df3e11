/** Picks the job queue from the configuration: BullMQ on Redis when `REDIS_URL` is set, in process otherwise. */
import type { Config } from '../config/config.ts';
import type { JobQueue, RetryPolicy } from '../ports/job-queue.ts';
import { createBullMqJobQueue } from './bullmq-job-queue.ts';
import { createInlineJobQueue } from './inline-job-queue.ts';

export interface JobQueueSettings {
  /** BullMQ queue name (one per kind of job). Default `projections`. */
  queueName?: string;
  /** Jobs of different ids this process runs at once on BullMQ. Default 1. */
  concurrency?: number;
  /** Redis and worker errors on BullMQ. */
  onError?: (error: Error) => void;
}

export function createJobQueue(
  config: Pick<Config, 'REDIS_URL'>, policy: RetryPolicy, settings: JobQueueSettings = {},
): JobQueue {
  if (!config.REDIS_URL) return createInlineJobQueue(policy);
  return createBullMqJobQueue({
    redisUrl: config.REDIS_URL,
    queueName: settings.queueName ?? 'projections',
    policy,
    ...(settings.concurrency !== undefined ? { concurrency: settings.concurrency } : {}),
    ...(settings.onError ? { onError: settings.onError } : {}),
  });
}
