/** The admin app's HTTP server, with the request and head timeouts of every port (shared/http/server-timeouts.ts). */
import { createServer, type Server } from 'node:http';
import type Koa from 'koa';
import { serverTimeouts } from '../../shared/http/server-timeouts.ts';

export function createAdminServer(app: Koa, requestTimeoutMs?: number): Server {
  return createServer(serverTimeouts(requestTimeoutMs), app.callback());
}
