/**
 * A request is answered from one snapshot; one whose snapshot expired while it read (a MongoDB snapshot whose
 * generation may have been dropped since) is answered again from a new snapshot, once, and never half from each.
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import { SnapshotExpiredError, type ReadStore, type ReadView } from '../../../shared/ports/read-store.ts';
import { answerInSnapshot, type StoreEnv } from '../../../shared/public-api/operations/answer-in-snapshot.ts';
import { ok, type PublicOperation } from '../../../shared/public-api/operations/public-operation.ts';
import type { ValidRequest } from '../../../shared/public-api/validation/request-validator.ts';

/** Counts the watches of its snapshot: one read. */
const counting: PublicOperation = {
  spec: {} as PublicOperation['spec'],
  reads: ['watches'],
  cacheable: true,
  async handle(_request, { readStore }) {
    return ok({ total: await readStore.count('watches', {}) });
  },
};

const expired: ReadView = {
  find: () => Promise.reject(new SnapshotExpiredError(600)),
  count: () => Promise.reject(new SnapshotExpiredError(600)),
  get: () => Promise.reject(new SnapshotExpiredError(600)),
  getMany: () => Promise.reject(new SnapshotExpiredError(600)),
};

/** `store` whose first `expiredFirst` snapshots expire before their reads end. */
function expiring(store: ReadStore, expiredFirst: number): ReadStore & { snapshots: number } {
  const wrapped = { ...store, snapshots: 0 };
  wrapped.snapshot = async () => (++wrapped.snapshots <= expiredFirst ? expired : store.snapshot());
  return wrapped;
}

const request = { query: {}, path: {} } as ValidRequest;

describe('answers from one snapshot', function () {
  it('answers a request whose snapshot expired from a new snapshot', async function () {
    const store = createMemoryReadStore();
    await store.write('watches', [{ put: { _id: 'a', position: 1 } }, { put: { _id: 'b', position: 1 } }]);
    const readStore = expiring(store, 1);
    const answer = await answerInSnapshot({ readStore } as Partial<StoreEnv> as StoreEnv)(counting, request);
    expect(answer).to.deep.equal({ status: 200, body: { total: 2 } });
    expect(readStore.snapshots).to.equal(2);
  });

  it('gives up after the second expired snapshot: the failure is the store\'s, as a slow store\'s is', async function () {
    const readStore = expiring(createMemoryReadStore(), 2);
    const failure = await answerInSnapshot({ readStore } as Partial<StoreEnv> as StoreEnv)(counting, request).then(() => undefined, (error: unknown) => error);
    expect(failure).to.be.instanceOf(SnapshotExpiredError);
    expect(readStore.snapshots).to.equal(2);
  });
});
