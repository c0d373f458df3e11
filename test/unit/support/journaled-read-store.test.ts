/** The crash tests' stand-in for MongoDB (test/support/journaled-read-store.ts) must recover from a torn write. */
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openJournaledReadStore } from '../../support/journaled-read-store.ts';

describe('journaled read store (crash-test support)', () => {
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'watchcat-journal-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('drops a write cut short by a kill and keeps every write made after the restart', async () => {
    const journal = join(dir, 'read-store.journal');
    const first = await openJournaledReadStore(journal);
    await first.write('serials', [{ put: { _id: 'A', position: 1 } }]);
    // What a SIGKILL in the middle of the next append leaves: a line without its end.
    appendFileSync(journal, '{"collection":"serials","ops":[{"put":{"_id":"B","posi');
    const restarted = await openJournaledReadStore(journal);
    expect(restarted.replayed).to.equal(1);
    await restarted.write('serials', [{ put: { _id: 'C', position: 3 } }]);
    const reopened = await openJournaledReadStore(journal);
    expect(reopened.replayed).to.equal(2);
    expect((await reopened.find('serials', {}, { sort: { _id: 1 } })).map((doc) => doc._id)).to.deep.equal(['A', 'C']);
  });
});
