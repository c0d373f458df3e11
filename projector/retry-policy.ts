import type { RetryPolicy } from '../shared/ports/job-queue.ts';

/**
 * The queue's own retries, for a job that throws anyway (a bug, or the process stopping mid-job): the catch-up
 * (catch-up-agent.ts) retries infrastructure errors itself, without limit, and parks a projection on an event it
 * cannot apply.
 */
export const PROJECTION_RETRY_POLICY: RetryPolicy = { attempts: 5, backoffMs: 1_000 };
