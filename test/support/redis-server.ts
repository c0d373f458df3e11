/**
 * Starts a private `redis-server` on a free loopback port for one test file, so runs never collide with each
 * other or with a Redis already on the machine. Nothing is persisted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { callingTestFile, registerLegFile } from './legs.ts';

export interface TestRedis {
  url: string;
  port: number;
  /** Stops the server (SIGKILL when `hard`), e.g. to inject an outage. */
  stop(hard?: boolean): Promise<void>;
  /** Starts it again on the same port after `stop`. */
  start(): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open, nothing is answered. */
  pause(): void;
  /** Lets a paused server go on (SIGCONT). */
  resume(): void;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Polls until the server answers; `failure` tells of a server that will never answer (it could not be started). */
async function waitUntilReady(port: number, failure: () => Error | undefined): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => {}); // refusals are expected until the server listens; the loop retries
    try {
      await client.connect();
      await client.ping();
      return;
    } catch (error) {
      const cause = failure();
      if (cause) throw cause;
      if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not start: ${String(error)}`);
      await sleep(50);
    } finally {
      client.disconnect();
    }
  }
}

/** Starts one; a machine without `redis-server` fails the test (every run, CI's included, needs Redis), saying so. */
export async function startTestRedis(): Promise<TestRedis> {
  const file = callingTestFile();
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const spawned = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    child = spawned;
    let failure: Error | undefined;
    spawned.once('error', (error: NodeJS.ErrnoException) => {
      failure = new Error(error.code === 'ENOENT'
        ? 'the Redis leg cannot run: redis-server is not on PATH (.ci/run installs it from Debian)'
        : `redis-server could not be started: ${error.message}`);
    });
    await waitUntilReady(port, () => failure);
  };
  const stop = async (hard = false) => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill(hard ? 'SIGKILL' : 'SIGTERM');
    await exited;
  };
  await start();
  registerLegFile('Redis', file);
  return {
    url: `redis://127.0.0.1:${port}`, port, stop, start,
    pause: () => { child?.kill('SIGSTOP'); },
    resume: () => { child?.kill('SIGCONT'); },
  };
}
