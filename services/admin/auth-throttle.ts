/**
 * Failed admin authentications per client, in fixed one-minute windows. Past the allowance a client is answered
 * 429 without its key being checked, so guessing costs a minute per few tries instead of a millisecond per try.
 * At most `maxClients` are remembered: expired windows go first, then the oldest, so a flood of addresses cannot
 * grow the table without bound.
 */
export interface AuthThrottle {
  /** Whole seconds until `client` may try again (at least 1), or 0 when it may try now. */
  retryAfter(client: string, now?: number): number;
  /** Counts a failed attempt of `client`. */
  failed(client: string, now?: number): void;
}

const WINDOW_MS = 60_000;

export function authThrottle(maxFailures: number, maxClients = 10_000): AuthThrottle {
  const windows = new Map<string, { start: number; failures: number }>();
  const current = (client: string, now: number) => {
    const window = windows.get(client);
    return window && now - window.start < WINDOW_MS ? window : undefined;
  };
  const makeRoom = (now: number) => {
    for (const [client, window] of windows) if (now - window.start >= WINDOW_MS) windows.delete(client);
    for (const client of windows.keys()) {
      if (windows.size < maxClients) break;
      windows.delete(client);
    }
  };
  return {
    retryAfter(client, now = Date.now()) {
      const window = current(client, now);
      if (!window || window.failures < maxFailures) return 0;
      return Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000));
    },
    failed(client, now = Date.now()) {
      const window = current(client, now);
      if (window) return void (window.failures += 1);
      if (windows.size >= maxClients) makeRoom(now);
      windows.set(client, { start: now, failures: 1 });
    },
  };
}
