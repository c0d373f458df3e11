/**
 * `projection_parked_position`: for each parked projection, the position of the event it stopped on, labelled with
 * the reason, read when Prometheus scrapes (from the read-model clock in an API process, from the store in a
 * projector). Every API and projector process shows it, since the state is read from the store; no series while
 * none is parked.
 */
import { Gauge, type Registry } from 'prom-client';
import type { ParkedProjection } from '../read-model/public-api/read-model-clock.ts';

export function parkedProjectionsMetric(
  registry: Registry, parked: () => readonly ParkedProjection[] | Promise<readonly ParkedProjection[]>,
): void {
  new Gauge({
    name: 'projection_parked_position',
    help: 'Position of the event a parked projection stopped on, with the reason (an operator resumes it)',
    labelNames: ['projection', 'reason'],
    registers: [registry],
    async collect() {
      const now = await parked();
      this.reset();
      for (const p of now) this.set({ projection: p.name, reason: p.reason }, p.position);
    },
  });
}
