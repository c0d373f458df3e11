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

/** How long the last look at the status, once the wait is over, may take. */
const LAST_LOOK_MS = 1_000;

/**
 * Where the API's read models stand, read from its status as anyone may ask it, for the line that says the change was
 * not served: a position at or past the change's with `degraded` says the API holds it but does not vouch for it (a
 * projection parked or stale, which its ops port's `/healthz` names), not that it is slow. Nothing when it does not answer.
 */
async function whereTheApiStands(base: string): Promise<string> {
  try {
    const answer = await fetch(`${base}/api/public/status`, { signal: AbortSignal.timeout(LAST_LOOK_MS) });
    const body = await answer.json() as { status?: unknown; read_model?: { position?: unknown } };
    const position = body.read_model?.position;
    if (answer.status !== 200 || !Number.isSafeInteger(position) || typeof body.status !== 'string') return '';
    const why = body.status === 'degraded' ? ': the API\'s /healthz on its ops port says what it cannot vouch for' : '';
    return `; its read models stand at position ${position as number}, status ${body.status}${why}`;
  } catch {
    return '';
  }
}

/**
 * Resolves the position the API at `base` answered at, once at or past `position`; rejects with NotServedError past
 * `timeoutMs`.
 */
export async function waitUntilServed(base: string, position: number, timeoutMs: number): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  let last = 'no answer yet';
  let answered = false;
  for (;;) {
    const left = deadline - performance.now();
    if (left <= 0) {
      const standing = await whereTheApiStands(base);
      throw new NotServedError(`position ${position} not served by ${base} within ${timeoutMs / 1000} s (${last}${standing})`);
    }
    let pause = RETRY_MS;
    try {
      const answer = await fetch(`${base}/api/public/status`, {
        headers: { 'X-Min-Position': String(position) }, signal: AbortSignal.timeout(Math.max(1, Math.ceil(left))),
      });
      await answer.arrayBuffer();
      if (answer.status === 200) return Number(answer.headers.get('x-read-model-position'));
      last = `last answer ${answer.status}`;
      answered = true;
      // A refusal names when to ask again; the API itself waited before refusing.
      pause = Number(answer.headers.get('retry-after') ?? 1) * 1000;
    } catch (error) {
      // Cut short by this wait's own deadline, an attempt says nothing of the API: the answer before it says more.
      const cut = (error as Error).name === 'TimeoutError' && answered;
      if (!cut) last = `last attempt: ${(error as Error).message}`;
    }
    await sleep(Math.min(pause, Math.max(0, deadline - performance.now())));
  }
}
