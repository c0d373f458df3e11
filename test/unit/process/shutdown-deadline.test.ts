/**
 * A stop that never ends still ends the process: `onShutdownSignal` exits with code 1 once its deadline passes,
 * so the process is gone before Docker's SIGKILL (`stop_grace_period`) and says why.
 */
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { spawnTs } from '../../support/child-process.ts';

const STUCK = fileURLToPath(new URL('../../support/stop-children/stuck-stop.ts', import.meta.url));

describe('shutdown deadline', function () {
  this.timeout(20_000);

  it('exits with code 1 once a stop outlasts its deadline, not before', async () => {
    const child = spawnTs(STUCK, ['400']);
    await child.started;
    const signalled = Date.now();
    child.child.kill('SIGTERM');
    const code = await child.exited;
    const took = Date.now() - signalled;
    expect(code).to.equal(1);
    expect(took).to.be.at.least(400);
    expect(took).to.be.below(5_000);
  });
});
