/** The transparency log's checkpoint as a running API serves it, for the tests that run the service as processes. */
import { until } from './until.ts';

/** The size and root of the checkpoint the API at `apiUrl` serves, or its status when it serves none. */
export async function servedCheckpoint(apiUrl: string): Promise<{ size: number; root: string } | number> {
  const response = await fetch(`${apiUrl}/.well-known/transparency/checkpoint`);
  if (response.status !== 200) return response.status;
  const [, size, root] = (await response.text()).split('\n');
  return { size: Number(size), root: root! };
}

/** Waits until the API at `apiUrl` serves a checkpoint of `size` leaves (within `ms`). */
export const untilServedSize = (apiUrl: string, size: number, ms: number) => until(`a checkpoint of ${size} leaves served`, async () => {
  const checkpoint = await servedCheckpoint(apiUrl);
  return typeof checkpoint !== 'number' && checkpoint.size === size;
}, ms);
