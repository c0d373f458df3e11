/**
 * `watchcat --wait`: after a command, wait until the public API serves what it appended (docs/api.md, "Read your
 * writes"). The CLI writes to the event store directly, so it asks the API for the status at or past the store's
 * head as the command left it (`X-Min-Position`); the API waits up to its own `MIN_POSITION_WAIT_MS` each time, and
 * the CLI asks again until its own deadline, judged on its own clock. Behind a load balancer, one replica answering
 * says that one serves it.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** A change the API did not serve in time: said in one line, exit 1. */
export class NotServedError extends Error {}

/** Between attempts that found no answer at all (the API restarting, say). */
const RETRY_MS = 500;

/**
 * Resolves the position the API at `base` answered at, once at or past `position`; rejects with NotServedError past
 * `timeoutMs`.
 */
export async function waitUntilServed(base: string, position: number, timeoutMs: number): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  let last = 'no answer yet';
  for (;;) {
    const left = deadline - performance.now();
    if (left <= 0) throw new NotServedError(`position ${position} not served by ${base} within ${timeoutMs / 1000} s (${last})`);
    let pause = RETRY_MS;
    try {
      const answer = await fetch(`${base}/api/public/status`, {
        headers: { 'X-Min-Position': String(position) }, signal: AbortSignal.timeout(Math.max(1, Math.ceil(left))),
      });
      await answer.arrayBuffer();
      if (answer.status === 200) return Number(answer.headers.get('x-read-model-position'));
      last = `last answer ${answer.status}`;
      // A refusal names when to ask again; the API itself waited before refusing.
      pause = Number(answer.headers.get('retry-after') ?? 1) * 1000;
    } catch (error) {
      last = `last attempt: ${(error as Error).message}`;
    }
    await sleep(Math.min(pause, Math.max(0, deadline - performance.now())));
  }
}
