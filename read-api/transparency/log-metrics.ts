/**
 * The transparency log on /metrics: `transparency_log_size` (the tree size of the latest signed checkpoint) and
 * `transparency_log_parked` (1 while the log projection is parked, or its tiles no longer give the checkpoint signed
 * before) and `transparency_log_refused_trees_total` (trees the signer refused: the alert an operator wants), read
 * when Prometheus scrapes.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
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
    help: '1 while the transparency log is parked, or its tiles no longer give the checkpoint signed before: it signs and serves nothing',
    registers: [registry],
    collect() {
      this.set(logs.parked() === undefined ? 0 : 1);
    },
  });
  let counted = 0;
  new Counter({
    name: 'transparency_log_refused_trees_total',
    help: 'Trees of the transparency log this process refused to sign: they did not extend the checkpoint signed last',
    registers: [registry],
    collect() {
      const refusals = logs.refusals();
      this.inc(refusals - counted);
      counted = refusals;
    },
  });
}
