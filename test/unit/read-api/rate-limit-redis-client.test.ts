/**
 * The Redis client of the rate limits (read-api/rate-limit/rate-limit-redis.ts; README "Rate limits"): no request
 * waits for a Redis that is not there, so a command is refused at once while the connection is not ready (no
 * offline queue, no retry of the command), one that was sent is dropped after 100 ms, reconnection is tried again
 * soon (100 ms more per attempt, at most a second apart), commands are auto-pipelined, and connection errors go to
 * the debug log instead of being printed by ioredis. Against a port nothing listens on: no server, no wait.
 */
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import { expect } from 'chai';
import type { Logger } from '../../../shared/logging/logger.ts';
import { connectRateLimitRedis } from '../../../read-api/rate-limit/rate-limit-redis.ts';

/** A local port that was free a moment ago: nothing answers there. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('rate-limit Redis client', () => {
  let client: Redis | undefined;
  const debugged: unknown[] = [];
  const logger = { debug: (entry: unknown) => { debugged.push(entry); } } as unknown as Logger;
  beforeEach(async () => {
    debugged.length = 0;
    client = connectRateLimitRedis(`redis://127.0.0.1:${await closedPort()}`, logger);
  });
  afterEach(() => client?.disconnect());

  it('refuses a command at once while the connection is not ready, instead of queueing it', async () => {
    expect(client!.status).to.not.equal('ready');
    const error = await client!.get('rl:general:198.51.100.1').then(() => undefined, (failure: Error) => failure);
    expect(error?.message).to.match(/enableOfflineQueue/);
  });

  it('drops a sent command after 100 ms, retries none, auto-pipelines, and reconnects after 100 ms per attempt, at most 1 s apart', () => {
    const options = client!.options;
    expect(options.commandTimeout).to.equal(100);
    expect(options.maxRetriesPerRequest).to.equal(0);
    expect(options.enableAutoPipelining).to.equal(true);
    expect([1, 2, 5, 10, 11, 50].map((attempt) => options.retryStrategy!(attempt))).to.deep.equal([100, 200, 500, 1000, 1000, 1000]);
  });

  it('logs connection errors at debug level (an error event with no listener would be thrown)', () => {
    const error = new Error('connect ECONNREFUSED');
    expect(() => client!.emit('error', error)).not.to.throw();
    expect(debugged).to.deep.include({ err: error });
  });
});
