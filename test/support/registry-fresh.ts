/**
 * Waits until a service started by a test can answer a verification: a process is fresh only once it has seen a
 * confirmation happen after its start (shared/read-model/public-api/read-model-clock.ts), about a second with a live projector,
 * and a verification needs the serials read model fresh (docs/api.md, "Honest answers"). Status says so per projection.
 */
import { send } from './http.ts';
import { until } from './until.ts';

export async function untilRegistryFresh(api: string, ms = 15_000): Promise<void> {
  await until('the serials read model is fresh', async () => {
    const status = (await send(api, '/api/public/status')).json<{ read_model: { projections: { name: string; fresh: boolean }[] } }>();
    return status.read_model.projections.some((projection) => projection.name === 'serials' && projection.fresh);
  }, ms);
}
