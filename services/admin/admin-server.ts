/**
 * The admin app's HTTP server, with the request and head timeouts of every port (shared/http/server-timeouts.ts),
 * closing the connection of an HTTP/1.0 message with chunked framing as they do (shared/http/faulty-framing.ts).
 */
import { createServer, type Server } from 'node:http';
import type Koa from 'koa';
import { closingFaultyFraming } from '../../shared/http/faulty-framing.ts';
import { serverTimeouts } from '../../shared/http/server-timeouts.ts';

export function createAdminServer(app: Koa, requestTimeoutMs?: number): Server {
  return createServer(serverTimeouts(requestTimeoutMs), closingFaultyFraming(app.callback()));
}
