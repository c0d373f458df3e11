/**
 * Parking a projection from outside its runs (`parkProjection`, the transparency log's signer finding tiles that no
 * longer give a root it signed): it takes the lease over to park, then lets it go so that the next owner need not
 * wait for it to expire; and when every take of the lease loses a race, it gives up with an error naming the
 * projection instead of trying for ever.
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import type { ReadStore } from '../../../shared/ports/read-store.ts';
import { leaseId } from '../../../shared/projections/control-docs.ts';
import { ProjectionLease } from '../../../shared/projections/lease.ts';
import { parkProjection } from '../../../shared/projections/parking.ts';
import { readProjectionStates } from '../../../shared/projections/projection-states.ts';
import { serialsProjection } from '../../../shared/projections/serials.projection.ts';

/** `store`, with every write of the serials projection's lease lost to another writer, counted. */
function leaseAlwaysTaken(store: ReadStore): { store: ReadStore; takes: () => number } {
  let takes = 0;
  const wrapped = new Proxy(store, {
    get(target, property) {
      if (property === 'setControl') {
        return async (...args: Parameters<ReadStore['setControl']>) => {
          if (args[0]._id !== leaseId(serialsProjection.name)) return target.setControl(...args);
          takes += 1;
          return false;
        };
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: wrapped, takes: () => takes };
}

describe('parking a projection from outside its runs', () => {
  it('parks it at its live checkpoint with the reason, and leaves its lease free for the next owner at once', async () => {
    const store = createMemoryReadStore();
    await parkProjection(store, serialsProjection, 'log-signer', 'tiles give another root');
    const serials = (await readProjectionStates(store)).find((state) => state.name === serialsProjection.name);
    expect(serials?.status).to.equal('parked');
    expect(serials?.parked).to.deep.equal({ position: 0, reason: 'tiles give another root' });
    // Not taken over (no preempt), and within the lease's time: only a released lease is free now.
    expect(await ProjectionLease.acquire(store, serialsProjection, 'worker-b')).to.not.equal(null);
  });

  it('gives up after ten takes of the lease lost to others, naming the projection, and parks nothing', async () => {
    const { store, takes } = leaseAlwaysTaken(createMemoryReadStore());
    let failure: unknown;
    await parkProjection(store, serialsProjection, 'log-signer', 'tiles give another root').catch((error: unknown) => { failure = error; });
    expect(failure).to.be.instanceOf(Error);
    expect((failure as Error).message).to.equal('could not take the lease of projection serials to park it');
    expect(takes()).to.equal(10);
    const serials = (await readProjectionStates(store)).find((state) => state.name === serialsProjection.name);
    expect(serials?.status ?? 'running').to.equal('running');
  });
});
