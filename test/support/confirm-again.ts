/**
 * A live projector's confirmations, for a read API running over a store that no projector keeps (the tests' and the
 * benchmarks' fixtures): see `confirmAgain`.
 */
import type { ReadStore } from '../../shared/ports/read-store.ts';
import type { CheckpointState } from '../../shared/read-model/projections/control-docs.ts';

let confirmedAgain = 0;

/**
 * Every confirmed checkpoint's head confirmed again (another `at`), as a running projector does: a read API started
 * over a store counts as fresh only a confirmation it saw happen after its start (read-model-clock.ts), so a harness
 * calls this once the API's clock runs, then has it read the store again.
 */
export async function confirmAgain(store: ReadStore): Promise<void> {
  for (const doc of await store.readControl()) {
    const { confirmed } = doc as Partial<CheckpointState>;
    if (!doc._id.startsWith('checkpoint:') || !confirmed) continue;
    confirmedAgain += 1;
    // A marker unlike any before it (never read as a time by the API).
    const at = new Date(Date.parse(confirmed.at) + confirmedAgain).toISOString();
    await store.setControl({ ...doc, confirmed: { head: confirmed.head, at } }, {}, true);
  }
}
