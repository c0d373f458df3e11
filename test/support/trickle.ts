/**
 * Slow clients over a raw socket, for the timeout tests: a request head sent and then a body trickled, or a head
 * that never ends. Tells what the server answered and when it closed the connection.
 */
import { connect, type Socket } from 'node:net';

export interface Trickle {
  /** Resolves with the first line of the answer (`HTTP/1.1 401 Unauthorized`), or null if it closed without one. */
  statusLine: Promise<string | null>;
  /** Resolves with the milliseconds from the start until the server closed the connection. */
  closedAfterMs: Promise<number>;
  stop(): void;
}

/** Sends `head` at once, then one byte of `drip` every `everyMs` until the server closes or `stop()`. */
export function trickle(url: string, head: string, drip = 'x', everyMs = 200): Trickle {
  const { hostname, port } = new URL(url);
  const started = performance.now();
  const socket: Socket = connect(Number(port), hostname);
  let received = '';
  const timer = setInterval(() => { if (!socket.destroyed) socket.write(drip); }, everyMs);
  const statusLine = new Promise<string | null>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (received.includes('\r\n')) resolve(received.split('\r\n')[0] ?? null);
    });
    socket.once('close', () => resolve(null));
  });
  const closedAfterMs = new Promise<number>((resolve) => {
    socket.once('close', () => {
      clearInterval(timer);
      resolve(performance.now() - started);
    });
  });
  socket.on('error', () => undefined);
  socket.write(head);
  return { statusLine, closedAfterMs, stop: () => { clearInterval(timer); socket.destroy(); } };
}

/** `closedAfterMs`, or `'still open'` after `limitMs`. */
export async function closedWithin(t: Trickle, limitMs: number): Promise<number | 'still open'> {
  return Promise.race([t.closedAfterMs, new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), limitMs))]);
}
