/**
 * Prometheus metrics of a read-api process: requests by route template and status, their latency, rate-limit
 * refusals, and the projection and queue figures, read from their owners only when Prometheus scrapes.
 */
import type { Context, Middleware } from 'koa';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { createProcessRegistry } from '../../shared/metrics/process-registry.ts';
import type { LimitName, RateLimitMetrics } from '../rate-limit/rate-limits.ts';
import type { ProjectionLag } from '../../shared/metrics/projection-lag.ts';
import { RequestTallies, type HistogramValues } from './request-tallies.ts';

interface ProjectionProgress {
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
/** Where a route that no @koa/router matched (a middleware reading its own paths) leaves its name. */
const NAMED_ROUTE = 'metricsRoute';

/** Counts the request under `template` (a fixed route template, never the raw path). */
export function nameRoute(ctx: Context, template: string): void {
  ctx.state[NAMED_ROUTE] = template;
}

export function createMetricsRegistry(sources: MetricSources = {}): Registry {
  const registry = createProcessRegistry();
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
          for (const [name, { seconds }] of await lags()) if (seconds !== undefined) this.set({ projection: name }, seconds);
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

/**
 * Counts and times every request by method, matched route template (`/api/public/catalogue/:reference`) and status.
 * On the request path only plain numbers move (a tally per label set, see `RequestTallies`); prom-client gets them
 * when it is scraped, through the collect callbacks of the counter and the histogram, instead of hashing the labels
 * of both on every request.
 */
export function metricsMiddleware(registry: Registry): Middleware {
  const { tallies } = requestMetrics(registry);
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const named: unknown = ctx.state[NAMED_ROUTE] ?? ctx['_matchedRoute'];
      const route = typeof named === 'string' ? named : UNMATCHED;
      tallies.add(ctx.method, route, ctx.status, (performance.now() - started) / 1e3);
    }
  };
}

/** What the rate limits call on a refusal (see `createRateLimits`), counting into this registry. */
export function rateLimitMetrics(registry: Registry): RateLimitMetrics {
  const counter = rejectionCounter(registry);
  return { rejected: (limit: LimitName) => counter.inc({ limit }) };
}

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const requestTallies = new WeakMap<Registry, RequestTallies>();

/** The request counter and latency histogram of `registry`, made once, fed from the tallies when scraped. */
function requestMetrics(registry: Registry): { tallies: RequestTallies } {
  const known = requestTallies.get(registry);
  if (known !== undefined) return { tallies: known };
  const tallies = new RequestTallies(DURATION_BUCKETS);
  requestTallies.set(registry, tallies);
  const labelNames = ['method', 'route', 'status'] as const;
  new Counter({
    name: REQUESTS, help: 'HTTP requests answered', labelNames, registers: [registry],
    collect() {
      this.reset();
      for (const tally of tallies.all()) this.inc(tally.labels, tally.count);
    },
  });
  new Histogram({
    name: DURATION, help: 'HTTP request latency', labelNames, registers: [registry], buckets: DURATION_BUCKETS,
    collect() {
      this.reset();
      for (const tally of tallies.all()) this.zero(tally.labels);
      tallies.copyInto(this as unknown as HistogramValues);
    },
  });
  return { tallies };
}

function rejectionCounter(registry: Registry): Counter<'limit'> {
  return (registry.getSingleMetric(REJECTIONS) as Counter<'limit'> | undefined)
    ?? new Counter({ name: REJECTIONS, help: 'Requests refused by a rate limit', labelNames: ['limit'], registers: [registry] });
}
