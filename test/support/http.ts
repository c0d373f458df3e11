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
}

export function send(baseUrl: string, path: string, options: TestRequest = {}): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, baseUrl), { method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
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
