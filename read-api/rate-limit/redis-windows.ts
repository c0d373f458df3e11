/**
 * The shared half of the rate limits: one Redis counter per limit and key, living for one window (its TTL). A
 * call adds the hits a process already let through and, when asked, one more hit only if it still fits, in one
 * atomic script, and answers the window's total and the time left. Many keys go out in one pipeline.
 */
import type { Redis } from 'ioredis';

export interface WindowHits {
  /** `namespace:key` of the window. */
  id: string;
  /** Hits already let through by this process, to add unconditionally. */
  add: number;
  /** Ask for one more hit, granted only if the window's total stays within `max`. */
  ask: boolean;
  max: number;
  durationMs: number;
}

export interface WindowTotal {
  /** Hits in the shared window after this call. */
  total: number;
  /** Milliseconds until the shared window ends. */
  ttlMs: number;
  /** The asked hit was added. */
  granted: boolean;
}

/** The window starts with its first hit and ends `durationMs` later, as the per-process windows do. */
const ADD_HITS = `
local total = tonumber(redis.call('GET', KEYS[1]) or '0')
local add = tonumber(ARGV[1])
if add > 0 then total = redis.call('INCRBY', KEYS[1], add) end
local granted = 0
if ARGV[2] == '1' and total < tonumber(ARGV[3]) then
  total = redis.call('INCR', KEYS[1])
  granted = 1
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  ttl = tonumber(ARGV[4])
elseif ttl == -2 then
  ttl = tonumber(ARGV[4])
end
return {total, ttl, granted}`;

type ScriptReply = [number, number, number];

interface WithAddHits {
  watchcatAddWindowHits(key: string, add: number, ask: '0' | '1', max: number, durationMs: number): Promise<ScriptReply>;
}

export class RedisWindows {
  constructor(readonly client: Redis) {
    if (!('watchcatAddWindowHits' in client)) client.defineCommand('watchcatAddWindowHits', { numberOfKeys: 1, lua: ADD_HITS });
  }

  get ready(): boolean {
    return this.client.status === 'ready';
  }

  get status(): string {
    return this.client.status;
  }

  /** One round trip for all `hits`; rejects if any of them failed. */
  async send(hits: readonly WindowHits[]): Promise<WindowTotal[]> {
    const pipeline = this.client.pipeline() as unknown as WithAddHits & { exec(): Promise<[Error | null, unknown][] | null> };
    for (const hit of hits) pipeline.watchcatAddWindowHits(hit.id, hit.add, hit.ask ? '1' : '0', hit.max, hit.durationMs);
    const replies = await pipeline.exec();
    if (replies === null) throw new Error('redis pipeline was discarded');
    return replies.map(([error, reply]) => {
      if (error) throw error;
      const [total, ttlMs, granted] = reply as ScriptReply;
      return { total, ttlMs, granted: granted === 1 };
    });
  }
}
