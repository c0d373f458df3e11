/**
 * A process's health endpoint (`GET /healthz`) for the processes without an operations port (the projector and the
 * admin API): on a port of its own, on loopback by default, since only the container's own healthcheck asks it.
 */
import { createServer } from 'node:http';
import { listen } from '../http/listen.ts';
import { serverTimeouts } from '../http/server-timeouts.ts';

export interface Health {
  healthy: boolean;
  /** What was found, shown in the answer. */
  checks: Record<string, unknown>;
}

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

/** Answers `GET /healthz` with 200 while `check` says healthy, 503 otherwise (or when it throws), 404 elsewhere. */
export async function startHealthServer(port: number, host: string, check: () => Health | Promise<Health>): Promise<HealthServer> {
  const server = createServer(serverTimeouts(), (req, res) => {
    if (req.method !== 'GET' || req.url !== '/healthz') {
      res.writeHead(404).end();
      return;
    }
    Promise.resolve().then(check).then(
      (health) => answer(health.healthy ? 200 : 503, health),
      (error: unknown) => answer(503, { healthy: false, checks: { error: error instanceof Error ? error.message : String(error) } }),
    );
    function answer(status: number, health: Health) {
      res.writeHead(status, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify(health));
    }
  });
  const bound = await listen(server, port, host);
  return {
    port: bound,
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
