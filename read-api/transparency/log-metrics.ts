/**
 * The transparency log on /metrics: `transparency_log_size` (the tree size of the latest signed checkpoint) and
 * `transparency_log_parked` (1 while the log projection is parked, as when its tiles no longer give the checkpoint
 * signed before: the alert an operator wants), read when Prometheus scrapes.
 */
import { Gauge, type Registry } from 'prom-client';
import type { TransparencyLog } from './log-publisher.ts';

export function transparencyLogMetrics(registry: Registry, logs: TransparencyLog): void {
  new Gauge({
    name: 'transparency_log_size',
    help: 'Tree size of the latest signed checkpoint of the transparency log',
    registers: [registry],
    collect() {
      this.set(logs.checkpoint()?.size ?? 0);
    },
  });
  new Gauge({
    name: 'transparency_log_parked',
    help: '1 while the transparency log is parked: the history no longer gives the checkpoint signed before',
    registers: [registry],
    collect() {
      this.set(logs.parked() === undefined ? 0 : 1);
    },
  });
}
