/**
 * The read models as this API process can vouch for them (docs/api.md, "Honest answers"), read from the read-model
 * clock when Prometheus scrapes: `read_model_built` and `read_model_fresh` (1 or 0) and `read_model_lag_seconds`
 * (since the projector last confirmed applying the event store's head; no series before it first did), per
 * projection. An alert on the lag beyond the bound says verifications are being refused.
 */
import { Gauge, type Registry } from 'prom-client';
import type { ProjectionFreshness } from '../../shared/read-model/public-api/read-model-clock.ts';

export function readModelFreshnessMetrics(registry: Registry, projections: () => readonly ProjectionFreshness[]): void {
  const gauge = (name: string, help: string, value: (p: ProjectionFreshness) => number | null) => new Gauge({
    name, help, labelNames: ['projection'], registers: [registry],
    collect() {
      this.reset();
      for (const p of projections()) {
        const measured = value(p);
        if (measured !== null) this.set({ projection: p.name }, measured);
      }
    },
  });
  gauge('read_model_built', 'Whether the projection\'s read model is built (its projector confirmed a head once): 1 or 0', (p) => Number(p.built));
  gauge('read_model_fresh', 'Whether this process saw the read model confirmed at the event store\'s head within READ_MODEL_MAX_LAG_SECONDS: 1 or 0', (p) => Number(p.fresh));
  gauge('read_model_lag_seconds', 'Seconds since the projector last confirmed having applied the event store\'s head', (p) => p.lag_seconds);
}

/**
 * `read_model_freshness_tickets_current`: 1 while this process takes freshness tickets, so that a checkpoint write that
 * lands late is judged by its ticket; 0 while the counter is away (Redis down), when confirmations are judged by their
 * owner's `age_ms` alone (docs/api.md, "Honest answers"). Absent without tickets.
 */
export function freshnessTicketsMetric(registry: Registry, current: () => boolean | undefined): void {
  new Gauge({
    name: 'read_model_freshness_tickets_current',
    help: 'Whether this process takes freshness tickets now (1), bounding each confirmation\'s age whatever its write\'s delay, or not (0: the counter is away)',
    registers: [registry],
    collect() {
      this.reset();
      const value = current();
      if (value !== undefined) this.set(Number(value));
    },
  });
}
