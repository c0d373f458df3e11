/** A tiny HTTP client for tests against a server listening on a real port (no supertest needed). */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface TestResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON. */
  json<T = any>(): T;
}

export interface TestRequest {
  method?: string;
  headers?: Record<string, string>;
  /** Sent as it is: a string or bytes. */
  body?: string | Buffer;
  /** The client's own address (any 127.x.y.z on loopback), to appear as another client. */
  localAddress?: string;
}

/** `path` is sent as the request line's target exactly as given (`new URL` would read `//api` as a host name). */
export function send(baseUrl: string, path: string, options: TestRequest = {}): Promise<TestResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const target = {
      hostname, port, path, method: options.method ?? 'GET', headers: options.headers ?? {},
      ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    };
    const req = httpRequest(target, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** POSTs a value as JSON. */
export function postJson(baseUrl: string, path: string, value: unknown, headers: Record<string, string> = {}): Promise<TestResponse> {
  return send(baseUrl, path, {
    method: 'POST', body: JSON.stringify(value), headers: { 'content-type': 'application/json', ...headers },
  });
}
