/**
 * `rate_limit_mode{mode}`: 1 for the way this process's rate limits decide now (`redis`: shared; `memory`: per
 * process, no REDIS_URL; `degraded`: Redis could not answer, each process decides alone), 0 for the others, so
 * that an alert can fire on the Redis fallback (infra/prometheus/alerts.yml).
 */
import { Gauge, type Registry } from 'prom-client';
import type { RateLimitMode } from '../rate-limit/rate-limits.ts';

const MODES: readonly RateLimitMode[] = ['redis', 'memory', 'degraded'];

export function rateLimitModeMetric(registry: Registry, mode: () => RateLimitMode): void {
  new Gauge({
    name: 'rate_limit_mode', help: 'How the rate limits decide now: 1 for the current mode (redis, memory, degraded)',
    labelNames: ['mode'], registers: [registry],
    collect() {
      const now = mode();
      for (const each of MODES) this.set({ mode: each }, each === now ? 1 : 0);
    },
  });
}
