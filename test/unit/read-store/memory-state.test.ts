/**
 * The in-memory store's state export and import (the read-model snapshot's two ends): what is exported comes back
 * whole, tombstones included, and a state that fails halfway leaves the store empty rather than half filled (a
 * start then replays every event instead of serving part of a snapshot).
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import type { StoredDoc } from '../../../shared/ports/read-store.ts';

describe('memory read store: state export and import', () => {
  it('exports the live generation with its tombstones and control documents, and imports them back', async () => {
    const store = createMemoryReadStore();
    await store.generation('serials', 1).write([{ put: { _id: 'old', position: 1 } }]);
    await store.generation('serials', 2).write([{ put: { _id: 'a', position: 3 } }, { put: { _id: 'b', position: 4 } }]);
    await store.generation('serials', 2).write([{ delete: { _id: 'b', position: 5 } }]);
    await store.setControl({ _id: 'generations', version: 1, live: { serials: 2 }, reserved: 2 }, {}, true);

    const state = store.exportState(['serials']);
    expect(state.tables).to.deep.equal([{ collection: 'serials', generation: 2, stored: [
      { _id: 'a', position: 3 }, { _id: 'b', position: 5, _deleted: true },
    ] }]);
    const copy = createMemoryReadStore();
    copy.importState(JSON.parse(JSON.stringify(state)));
    expect(await copy.find('serials', {})).to.deep.equal([{ _id: 'a', position: 3 }]);
    expect(await copy.generation('serials', 2).getStored(['b'])).to.deep.equal([{ _id: 'b', position: 5, _deleted: true }]);
    expect(await copy.readControl()).to.deep.equal(await store.readControl());
    expect(() => copy.importState(state)).to.throw(/empty store only/);
  });

  it('keeps nothing of a state that fails halfway', async () => {
    const unreadable = { _id: 'x', position: 2, get reference(): string { throw new Error('unreadable document'); } } as StoredDoc;
    const store = createMemoryReadStore();
    expect(() => store.importState({
      control: [{ _id: 'generations', version: 1, live: {}, reserved: 1 }],
      tables: [
        { collection: 'serials', generation: 1, stored: [{ _id: 'a', position: 1 }] },
        { collection: 'watches', generation: 1, stored: [unreadable] },
      ],
    })).to.throw('unreadable document');
    expect(await store.readControl()).to.deep.equal([]);
    expect(await store.find('serials', {})).to.deep.equal([]);
  });
});
