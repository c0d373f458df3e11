/**
 * Picks the job queue from the configuration: BullMQ on Redis when `REDIS_URL` is set, in process otherwise. BullMQ
 * is loaded only when chosen.
 */
import type { Config } from '../config/config.ts';
import type { JobQueue, RetryPolicy } from '../ports/job-queue.ts';
import { createInlineJobQueue } from './inline-job-queue.ts';

interface JobQueueSettings {
  /** BullMQ queue name (one per kind of job). Default `projections`. */
  queueName?: string;
  /** Jobs of different ids this process runs at once on BullMQ. Default 1. */
  concurrency?: number;
  /** Redis and worker errors on BullMQ. */
  onError?: (error: Error) => void;
}

export async function createJobQueue(
  config: Pick<Config, 'REDIS_URL'>, policy: RetryPolicy, settings: JobQueueSettings = {},
): Promise<JobQueue> {
  if (!config.REDIS_URL) return createInlineJobQueue(policy);
  const { createBullMqJobQueue } = await import('./bullmq-job-queue.ts');
  return createBullMqJobQueue({
    redisUrl: config.REDIS_URL,
    queueName: settings.queueName ?? 'projections',
    policy,
    ...(settings.concurrency !== undefined ? { concurrency: settings.concurrency } : {}),
    ...(settings.onError ? { onError: settings.onError } : {}),
  });
}
