/**
 * The `db` that koa-ratelimit's Redis driver talks to, in front of ioredis: all the limits one request counts go to
 * Redis in one round trip. The driver defines its sliding-window script (`defineCommand('ratelimiter', ...)`) and
 * calls `db.ratelimiter(key, now, duration, max, peek)` once per limit; here the script is wrapped in a loop that
 * runs it for several keys in order, stopping at the first refusal, as the limits would one after the other. The
 * first limit of a request is sent with the limits that will follow it (a `Trip`), and the later ones are answered
 * from that same reply. Each limit is still decided by the driver's own script and koa-ratelimit's own middleware.
 */
import type { Redis } from 'ioredis';
import type { RedisDb } from 'koa-ratelimit';

/** One limit a request will count after the first: its Redis key (`namespace:id`, as the driver builds it). */
export interface FollowingLimit {
  key: string;
  duration: number;
  max: number;
}

/** What the script answers per limit: remaining before this request, reset, max (the driver's own reply). */
type LimitReply = [number, number, number];

/** The limits of one request: those still to come, then their replies once the first limit has asked. */
export class Trip {
  readonly replies = new Map<string, Promise<LimitReply>>();

  constructor(public following: readonly FollowingLimit[]) {}
}

const CHAINED = 'rateLimitsInOrder';

interface ChainingClient {
  [CHAINED](keyCount: number, ...keysThenArgs: (string | number)[]): Promise<number[]>;
}

export class OneTripRedisDb implements RedisDb {
  #trip: Trip | undefined;
  [command: string]: unknown;

  constructor(readonly client: Redis) {}

  /**
   * Called by the driver once, with its script: the client learns the script run for each key in turn (the keys
   * are counted by the caller), and this db answers `name` (`ratelimiter`) as the driver expects.
   */
  defineCommand(name: string, definition: { numberOfKeys: number; lua: string }): void {
    if (typeof this.client[CHAINED as keyof Redis] !== 'function') {
      this.client.defineCommand(CHAINED, { lua: chainedScript(definition.lua) });
    }
    this[name] = (key: string, now: number, duration: number, max: number, peek: string) => this.#limit(key, now, duration, max, peek);
  }

  /**
   * The trip of the request whose limit koa-ratelimit is about to ask (it calls `ratelimiter` synchronously when
   * its middleware is called); `undefined` right after, so that no other request's call picks it up.
   */
  use(trip: Trip | undefined): void {
    this.#trip = trip;
  }

  #limit(key: string, now: number, duration: number, max: number, peek: string): Promise<LimitReply> {
    const trip = this.#trip;
    this.#trip = undefined;
    const kept = trip?.replies.get(key);
    if (kept !== undefined) {
      trip!.replies.delete(key);
      return kept;
    }
    const following = trip?.following ?? [];
    if (trip !== undefined) trip.following = [];
    const keys = [key, ...following.map((limit) => limit.key)];
    const args = [now, peek, duration, max, ...following.flatMap((limit) => [limit.duration, limit.max])];
    const reply = (this.client as unknown as ChainingClient)[CHAINED](keys.length, ...keys, ...args);
    following.forEach((limit, i) => {
      const answer = reply.then((values) => replyAt(values, i + 1));
      // Not asked when the request stops before that limit (refused, or an error): never an unhandled rejection.
      answer.catch(() => {});
      trip!.replies.set(limit.key, answer);
    });
    return reply.then((values) => replyAt(values, 0));
  }
}

function replyAt(values: number[], index: number): LimitReply {
  const at = index * 3;
  if (values.length < at + 3) throw new Error('rate limit not counted: an earlier limit refused the request');
  return [values[at]!, values[at + 1]!, values[at + 2]!];
}

/**
 * The driver's script as a function of one key and its arguments, run for every key in order until one refuses
 * (its `remaining` is 0: the driver lets a request through when it is not). ARGV: now, peek, then duration and max
 * per key. Replies flattened, three numbers per limit counted.
 */
function chainedScript(lua: string): string {
  return `local function limit(KEYS, ARGV)
${lua}
end
local replies = {}
for i = 1, #KEYS do
  local reply = limit({KEYS[i]}, {ARGV[1], ARGV[1 + 2 * i], ARGV[2 + 2 * i], ARGV[2]})
  replies[#replies + 1] = reply[1]
  replies[#replies + 1] = reply[2]
  replies[#replies + 1] = reply[3]
  if reply[1] <= 0 then break end
end
return replies`;
}
