/**
 * Prometheus metrics of a process that runs the admin API: `commands_total{command, outcome}`, every command run,
 * by its type and how it ended (command-service.ts, `CommandOutcome`), and `admin_auth_failures_total{outcome}`.
 */
import { Counter, type Registry } from 'prom-client';
import type { CommandOutcome } from '../write/command-service.ts';
import type { AuthFailureMetrics } from './require-scope.ts';

export function commandMetrics(registry: Registry): (command: string, outcome: CommandOutcome) => void {
  const counter = new Counter({
    name: 'commands_total', help: 'Commands run, by command type and outcome (appended, unchanged, refused, failed)',
    labelNames: ['command', 'outcome'], registers: [registry],
  });
  return (command, outcome) => counter.inc({ command, outcome });
}

/** Failed admin authentications by outcome (`refused` 401, `throttled` 429). */
export function adminAuthMetrics(registry: Registry): AuthFailureMetrics {
  const counter = new Counter({
    name: 'admin_auth_failures_total', help: 'Failed admin API authentications', labelNames: ['outcome'], registers: [registry],
  });
  return { failed: (outcome) => counter.inc({ outcome }) };
}
