/**
 * `projection_parked_position`: for each parked projection, the position of the event it stopped on, labelled with
 * the reason, read from the read-model clock when Prometheus scrapes. Every API process shows it, since the state
 * is read from the store; no series while none is parked.
 */
import { Gauge, type Registry } from 'prom-client';
import type { ParkedProjection } from '../../shared/public-api/read-model-clock.ts';

export function parkedProjectionsMetric(registry: Registry, parked: () => readonly ParkedProjection[]): void {
  new Gauge({
    name: 'projection_parked_position',
    help: 'Position of the event a parked projection stopped on, with the reason (an operator resumes it)',
    labelNames: ['projection', 'reason'],
    registers: [registry],
    collect() {
      this.reset();
      for (const p of parked()) this.set({ projection: p.name, reason: p.reason }, p.position);
    },
  });
}
