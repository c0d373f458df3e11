/**
 * The read-model clock's list of parked projections (shared/read-model/public-api/read-model-clock.ts), which the ready and
 * health probes and the parked-projections metric read (read-api/server.ts): it follows each poll's states, also when
 * a projection is parked or resumed at the position it stood at, so that nothing else about it moved.
 */
import { expect } from 'chai';
import { createMemoryReadStore } from '../../../shared/adapters/memory-read-store.ts';
import type { ProjectionState } from '../../../shared/read-model/projections/projection-states.ts';
import { startReadModelClock } from '../../../shared/read-model/public-api/read-model-clock.ts';

const state = (name: string, position: number, parked: ProjectionState['parked'] = null): ProjectionState => ({
  name, generation: 1, position, status: parked ? 'parked' : 'running', parked, updated_at: null, confirmed: null,
});

describe('read-model clock: parked projections', () => {
  it('stops listing a projection resumed at the position it was parked at, and lists one parked where it stood', async () => {
    const reason = 'event 41 (WatchRepriced): boom';
    let states = [state('watches', 40, { position: 41, reason }), state('serials', 45)];
    const clock = await startReadModelClock(async () => ({ view: createMemoryReadStore(), states }), { intervalMs: 60_000 });
    clock.stop();
    expect(clock.parked).to.deep.equal([{ name: 'watches', position: 41, reason }]);
    // `watchcat projections resume`: running again, at the same position (parking.ts).
    states = [state('watches', 40), state('serials', 45)];
    await clock.refresh();
    expect(clock.parked, 'resumed').to.deep.equal([]);
    states = [state('watches', 40), state('serials', 45, { position: 46, reason })];
    await clock.refresh();
    expect(clock.parked, 'parked where it stood').to.deep.equal([{ name: 'serials', position: 46, reason }]);
  });
});
