/**
 * The operations port of the processes without the read API's (the projector and the admin API): `GET /healthz`
 * for the container's healthcheck and `GET /metrics` for Prometheus, on a port of their own, on loopback by default.
 * The health answer says which process gives it (process-identity.ts).
 */
import { createServer } from 'node:http';
import type { Registry } from 'prom-client';
import { listen } from '../http/listen.ts';
import { serverTimeouts } from '../http/server-timeouts.ts';
import { PROCESS_IDENTITY } from './process-identity.ts';

export interface Health {
  healthy: boolean;
  /** What was found, shown in the answer. */
  checks: Record<string, unknown>;
}

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

/**
 * Answers `GET /healthz` with 200 while `check` says healthy, 503 otherwise (or when it throws), `GET /metrics` with
 * `registry` when given, 404 elsewhere.
 */
export async function startHealthServer(
  port: number, host: string, check: () => Health | Promise<Health>, registry?: Registry,
): Promise<HealthServer> {
  const server = createServer(serverTimeouts(), (req, res) => {
    if (registry && req.method === 'GET' && req.url === '/metrics') {
      registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
      return;
    }
    if (req.method !== 'GET' || req.url !== '/healthz') {
      res.writeHead(404).end();
      return;
    }
    Promise.resolve().then(check).then(
      (health) => answer(health.healthy ? 200 : 503, health),
      (error: unknown) => answer(503, { healthy: false, checks: { error: error instanceof Error ? error.message : String(error) } }),
    );
    function answer(status: number, health: Health) {
      const body = JSON.stringify({ ...health, process: PROCESS_IDENTITY });
      res.writeHead(status, { 'content-type': 'application/json', connection: 'close' }).end(body);
    }
  });
  const bound = await listen(server, port, host, 'HEALTH_PORT');
  return {
    port: bound,
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
