/** A Prometheus registry with the Node process's default metrics, the start of every process's `/metrics`. */
import { Registry, collectDefaultMetrics } from 'prom-client';

export function createProcessRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Nobody needs the Node version from the outside, and it tells an attacker which advisories apply.
  registry.removeSingleMetric('nodejs_version_info');
  return registry;
}
