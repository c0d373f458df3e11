/**
 * An in-process stand-in for the Redis commands koa-ratelimit's Redis driver and the one-trip db send
 * (read-api/rate-limit/one-trip-redis.ts), shared by the rate-limit suites that run without a Redis server.
 */
import type { Redis } from 'ioredis';

/**
 * What the Redis driver asks of its client: the `ratelimiter` command (key, now in µs, window in ms, max, peek)
 * answered as async-ratelimiter's script does, `[remaining before this request, reset in Unix seconds, max]`,
 * counting the request when there is room. `down` makes every command fail at once.
 */
export function redisStandIn() {
  const windows = new Map<string, number[]>();
  const keys: string[] = [];
  /** The keys of each `rateLimitsInOrder` command, one entry per round trip. */
  const trips: string[][] = [];
  const state = { down: false };
  const client = {
    status: 'ready',
    async ratelimiter(key: string, _nowMicro: number, duration: number, max: number): Promise<number[]> {
      if (state.down) throw new Error('no answer from Redis');
      keys.push(key);
      const now = Date.now();
      const kept = (windows.get(key) ?? []).filter((at) => at > now - duration);
      const reset = Math.floor(((kept[0] ?? now) + duration) / 1000);
      const remaining = max - kept.length;
      if (remaining > 0) kept.push(now);
      windows.set(key, kept);
      return [Math.max(remaining, 0), reset, max];
    },
    /**
     * The limits of one request in one round trip (read-api/rate-limit/one-trip-redis.ts): the script above for each
     * key in order, `now`, `peek`, then duration and max per key, replies flattened, stopping at the first refusal.
     */
    async rateLimitsInOrder(keyCount: number, ...keysThenArgs: (string | number)[]): Promise<number[]> {
      const keysOfTrip = keysThenArgs.slice(0, keyCount).map(String);
      trips.push(keysOfTrip);
      const [now, , ...limits] = keysThenArgs.slice(keyCount).map(Number);
      const replies: number[] = [];
      for (const [i, key] of keysOfTrip.entries()) {
        const reply = await client.ratelimiter(key, now!, limits[2 * i]!, limits[2 * i + 1]!);
        replies.push(...reply);
        if (reply[0]! <= 0) break;
      }
      return replies;
    },
  };
  return { client: client as unknown as Redis, keys, trips, state };
}
