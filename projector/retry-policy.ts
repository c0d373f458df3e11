import type { RetryPolicy } from '../shared/ports/job-queue.ts';

/** A poison event is retried five times over about half a minute before its projection is marked failed. */
export const PROJECTION_RETRY_POLICY: RetryPolicy = { attempts: 5, backoffMs: 1_000 };
