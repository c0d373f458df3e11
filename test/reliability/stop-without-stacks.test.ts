/**
 * Issue 29, item 4: a graceful stop logs no error stack. On MongoDB, a poll of the read-model clock still in flight
 * when `read-api/main.ts` closes the store failed with `MongoClientClosedError`, logged as a warning with its stack
 * (on main at 204df55). Here the store's snapshot (the clock's one read of the control documents) is held open until the store closes, then fails as the
 * MongoDB driver fails it; the API was told to stop first, so that failure is expected and not worth a line.
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { loadFixtureCatalogue } from '../api/support/catalogue-fixture.ts';
import { startReadApiUnderTest } from '../support/read-api-under-test.ts';

/**
 * A store whose snapshots (the clock's poll), once `hold()` was called, wait until it is closed and then fail as a
 * closed client does; before, they are read as usual (the API's start reads a few).
 */
function storeClosingUnderAPoll(inner: ReadStore): { store: ReadStore; held: () => number; hold: () => void } {
  let holding = false;
  let held = 0;
  let closed: () => void = () => {};
  const closing = new Promise<void>((resolve) => { closed = resolve; });
  const store = Object.create(inner) as ReadStore;
  store.snapshot = async () => {
    if (!holding) return inner.snapshot();
    held += 1;
    await closing;
    throw Object.assign(new Error('Operation interrupted because client was closed'), { name: 'MongoClientClosedError' });
  };
  store.close = async () => {
    closed();
    await inner.close();
  };
  return { store, held: () => held, hold: () => { holding = true; } };
}

describe('a graceful stop of the read API', function () {
  this.timeout(20_000);

  it('logs no warning or error with a stack when a poll fails because the store was closed by the stop', async () => {
    const memory = createMemoryReadStore();
    await loadFixtureCatalogue(memory);
    const { store, held, hold } = storeClosingUnderAPoll(memory);
    const api = await startReadApiUnderTest({ readStore: store });
    hold();
    while (held() === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    await api.close();
    await store.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const withStacks = api.logs.filter((line) => line.level >= 40 || JSON.stringify(line).includes('"stack"'));
    expect(withStacks).to.deep.equal([]);
  });
});
