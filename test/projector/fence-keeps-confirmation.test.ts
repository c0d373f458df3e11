/**
 * A new owner fences the live checkpoint with its token (lease.ts, `fenceCheckpoint`), on the state it read when it
 * began taking the lease. The previous owner may still store checkpoints under its own token until that fence lands:
 * an idle projection's owner confirms the same position again every second (reconfirmation.ts). A fence built on the
 * state read before such a confirmation must not put the older confirmation back: every API process counts a
 * confirmation that changed as one it saw happen since its poll before (read-model-clock.ts), so an older one put
 * back reads as a new one, and the registry as fresher than any head its owner last read.
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { headConfirmation, leaseId, type HeadConfirmation } from '../../shared/read-model/projections/control-docs.ts';
import { ProjectionLease, type LeaseClock } from '../../shared/read-model/projections/lease.ts';
import { readProjectionStates, readSnapshotStates } from '../../shared/read-model/projections/projection-states.ts';
import { serialsProjection } from '../../shared/read-model/projections/serials.projection.ts';
import { startReadModelClock } from '../../shared/read-model/public-api/read-model-clock.ts';

class FakeClock implements LeaseClock {
  now = 1_000_000;
  monotonic = (): number => this.now;
  wall = (): number => this.now;
}

/** `store`, running `before` once, just before the first `setControl` of the lease document. */
function beforeLeaseWrite(store: ReadStore, before: () => Promise<void>): ReadStore {
  let done = false;
  return new Proxy(store, {
    get(target, name, receiver) {
      if (name !== 'setControl') return Reflect.get(target, name, receiver) as unknown;
      return async (...args: Parameters<ReadStore['setControl']>) => {
        if (!done && args[0]._id === leaseId(serialsProjection.name)) {
          done = true;
          await before();
        }
        return target.setControl(...args);
      };
    },
  });
}

describe('fencing a checkpoint', () => {
  it('never puts back a confirmation older than the one stored meanwhile by the previous owner', async () => {
    const store = createMemoryReadStore();
    const clock = new FakeClock();
    const confirmAt = (head: number): HeadConfirmation =>
      headConfirmation({ head, wallMs: clock.wall(), monotonicMs: clock.monotonic() }, clock.monotonic());

    const previous = (await ProjectionLease.acquire(store, serialsProjection, 'worker-a', { clock }))!;
    await previous.saveCheckpoint(0, previous.generation, confirmAt(0));
    const older = (await readProjectionStates(store)).find((s) => s.name === 'serials')!.confirmed!;

    // The API process polls with its own monotonic clock (the fake one): it sees the older confirmation at its start.
    const api = await startReadModelClock(() => readSnapshotStates(store), { monotonic: () => clock.monotonic(), intervalMs: 3_600_000 });
    try {
      // A rebuild (or a worker that saw the lease lapse) begins taking the lease; meanwhile the previous owner, idle
      // and alive, confirms the same position again a second later, and the API process sees that confirmation.
      const newer = { value: undefined as HeadConfirmation | undefined };
      const racing = beforeLeaseWrite(store, async () => {
        clock.now += 1_000;
        newer.value = confirmAt(0);
        await previous.saveCheckpoint(0, previous.generation, newer.value);
        // Seen by the poll after it, 900 ms later: it happened after the poll before (at the start) began.
        clock.now += 900;
        await api.refresh();
      });
      const taken = await ProjectionLease.acquire(racing, serialsProjection, 'rebuild:x', { clock, preempt: true });
      expect(taken, 'the new owner takes the lease').to.not.equal(null);
      const stored = (await readProjectionStates(store)).find((s) => s.name === 'serials')!.confirmed!;
      expect(stored.at, 'the confirmation the fence left').to.not.equal(older.at);
      expect(stored).to.deep.equal(newer.value);

      // Nobody confirms from here on (the new owner is fenced in a rebuild, say). The last head read was the newer
      // confirmation's, 1 s after the start: 5.5 s later the registry is past the verification's 5 s bound.
      clock.now += 100;
      await api.refresh();
      clock.now += 4_500;
      expect(api.refusal(['serials'], true), 'verification refused past its bound').to.equal('stale');
    } finally {
      api.stop();
      await store.close();
    }
  });
});
