/**
 * Prometheus metrics of a read-api process: requests by route template and status, their latency, rate-limit
 * refusals, and the projection and queue figures, read from their owners only when Prometheus scrapes.
 */
import type { Middleware } from 'koa';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { LimitName, RateLimitMetrics } from '../rate-limit/rate-limits.ts';
import type { ProjectionLag } from './projection-lag.ts';

export interface ProjectionProgress {
  name: string;
  /** Position of the last event the projection applied. */
  position: number;
  /** Stopped on an event it cannot apply. */
  failed: boolean;
}

/** Where the scrape-time figures come from; each is optional, a process shows what it has. */
export interface MetricSources {
  projections?: () => ProjectionProgress[] | Promise<ProjectionProgress[]>;
  /** How far behind the store a projection at this position is (see `projectionLag`). */
  lag?: (position: number) => Promise<ProjectionLag>;
  /** Projection jobs waiting in the queue. */
  queueDepth?: () => number | Promise<number>;
}

const REQUESTS = 'http_requests_total';
const DURATION = 'http_request_duration_seconds';
const REJECTIONS = 'rate_limit_rejections_total';
/** Requests no route matched share one label, so scanners cannot blow up the series count. */
const UNMATCHED = 'unmatched';

export function createMetricsRegistry(sources: MetricSources = {}): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Nobody needs the Node version from the outside, and it tells an attacker which advisories apply.
  registry.removeSingleMetric('nodejs_version_info');
  requestMetrics(registry);
  rejectionCounter(registry);
  const { projections, lag, queueDepth } = sources;
  if (projections) {
    new Gauge({
      name: 'projection_position', help: 'Position of the last event applied, per projection', labelNames: ['projection'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const p of await projections()) this.set({ projection: p.name }, p.position);
      },
    });
    new Gauge({
      name: 'projection_failed', help: '1 while a projection is stopped on an event it cannot apply', labelNames: ['projection'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const p of await projections()) this.set({ projection: p.name }, p.failed ? 1 : 0);
      },
    });
    if (lag) {
      // Projections mostly stand at the same position: the store is asked once per distinct one.
      const lags = async (): Promise<[string, ProjectionLag][]> => {
        const all = await projections();
        const byPosition = new Map<number, Promise<ProjectionLag>>();
        for (const p of all) if (!byPosition.has(p.position)) byPosition.set(p.position, lag(p.position));
        return Promise.all(all.map(async (p): Promise<[string, ProjectionLag]> => [p.name, await byPosition.get(p.position)!]));
      };
      new Gauge({
        name: 'projection_lag_events', help: 'Events in the store not yet applied, per projection (only where the store counts events)',
        labelNames: ['projection'], registers: [registry],
        async collect() {
          this.reset();
          for (const [name, { events }] of await lags()) if (events !== undefined) this.set({ projection: name }, events);
        },
      });
      new Gauge({
        name: 'projection_lag_seconds', help: 'Age of the oldest event not yet applied, per projection (0 when caught up)',
        labelNames: ['projection'], registers: [registry],
        async collect() {
          this.reset();
          for (const [name, { seconds }] of await lags()) this.set({ projection: name }, seconds);
        },
      });
    }
  }
  if (queueDepth) {
    new Gauge({
      name: 'projection_queue_depth', help: 'Projection jobs waiting', registers: [registry],
      async collect() { this.set(await queueDepth()); },
    });
  }
  return registry;
}

/** Counts and times every request by method, matched route template (`/api/public/catalogue/:reference`) and status. */
export function metricsMiddleware(registry: Registry): Middleware {
  const { requests, duration } = requestMetrics(registry);
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const route = typeof ctx['_matchedRoute'] === 'string' ? ctx['_matchedRoute'] : UNMATCHED;
      const labels = { method: ctx.method, route, status: String(ctx.status) };
      requests.inc(labels);
      duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    }
  };
}

/** Failed admin authentications by outcome (`refused` 401, `throttled` 429), for the admin app of this process. */
export function adminAuthMetrics(registry: Registry): { failed(outcome: 'refused' | 'throttled'): void } {
  const counter = new Counter({
    name: 'admin_auth_failures_total', help: 'Failed admin API authentications', labelNames: ['outcome'], registers: [registry],
  });
  return { failed: (outcome) => counter.inc({ outcome }) };
}

/** What the rate limits call on a refusal (see `createRateLimits`), counting into this registry. */
export function rateLimitMetrics(registry: Registry): RateLimitMetrics {
  const counter = rejectionCounter(registry);
  return { rejected: (limit: LimitName) => counter.inc({ limit }) };
}

function requestMetrics(registry: Registry) {
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = (registry.getSingleMetric(REQUESTS) as Counter<(typeof labelNames)[number]> | undefined)
    ?? new Counter({ name: REQUESTS, help: 'HTTP requests answered', labelNames, registers: [registry] });
  const duration = (registry.getSingleMetric(DURATION) as Histogram<(typeof labelNames)[number]> | undefined)
    ?? new Histogram({
      name: DURATION, help: 'HTTP request latency', labelNames, registers: [registry],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    });
  return { requests, duration };
}

function rejectionCounter(registry: Registry): Counter<'limit'> {
  return (registry.getSingleMetric(REJECTIONS) as Counter<'limit'> | undefined)
    ?? new Counter({ name: REJECTIONS, help: 'Requests refused by a rate limit', labelNames: ['limit'], registers: [registry] });
}
