/**
 * One request over a raw socket, bytes exactly as given (an HTTP client would refuse or rewrite targets such as
 * `http://[::1/x`, `*` or `host:443`), and the answer read back as the server wrote it.
 */
import { connect } from 'node:net';

export interface RawAnswer {
  /** The answer's bytes as they came, as `curl -si` would save them. */
  raw: Buffer;
  status: number;
  /** Lower-case names; repeated fields joined with `, `. */
  headers: Record<string, string>;
  body: string;
}

/** Sends `head` (and nothing else) and reads until the server closes; undefined if it closed without an answer. */
export function rawExchange(baseUrl: string, head: string, timeoutMs = 5_000): Promise<RawAnswer | undefined> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(head, 'latin1'));
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no end of answer within ${timeoutMs} ms to ${JSON.stringify(head.slice(0, 200))}`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A reset after the answer was written (the server closing on unread bytes) still leaves the answer readable.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseAnswer(Buffer.concat(chunks)));
    });
  });
}

function parseAnswer(raw: Buffer): RawAnswer | undefined {
  const text = raw.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  if (!status) return undefined;
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return { raw, status, headers, body: Buffer.from(text.slice(end + 4), 'latin1').toString('utf8') };
}

/**
 * Sends a request head announcing a body longer than `partialBody`, then `partialBody`, then closes its side, as a
 * client that hangs up mid-upload; resolves once the server has closed the connection too.
 */
export function sendHalfBodyAndClose(baseUrl: string, head: string, partialBody: string): Promise<void> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(head, 'latin1');
      // Written apart from the head, so the server has begun reading the body when the connection ends.
      setImmediate(() => socket.end(partialBody, 'latin1'));
    });
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
  });
}
