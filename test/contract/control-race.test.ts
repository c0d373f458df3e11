/**
 * The atomic primitive under the fence (ARCHITECTURE.md, "Fenced to the end"), proven as several processes: two
 * processes race, round after round, for one expired lease with the store's compare-and-set; exactly one of them
 * may win each round. A MongoDB leg; on FerretDB 1.24 a conditional update is not atomic across processes
 * (issue 28: both won in 65 of 150 tries), so this proves the adapter's own way of making it atomic.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createMongoReadStore } from '../../shared/adapters/mongodb-read-store.ts';
import { seededRandom } from '../../shared/random/seeded-random.ts';
import { describeMongo } from '../support/mongodb-leg.ts';

const CHILD = fileURLToPath(new URL('../support/control-race-child.ts', import.meta.url));
const ROUNDS = 150;
/** Jitter before each try, in microseconds: enough to cover the children's differing start of each round. */
const MAX_SPIN_US = 1_500;

interface Racer {
  child: ChildProcess;
  /** Resolves with the next line the child prints. */
  next(): Promise<string>;
}

function startRacer(url: string, database: string, name: string): Racer {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, database, name], {
    stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, MONGODB_URL: url },
  });
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const waiter = waiting.shift();
    if (waiter) waiter(line);
    else lines.push(line);
  });
  return { child, next: () => new Promise((resolve) => { const line = lines.shift(); if (line !== undefined) resolve(line); else waiting.push(resolve); }) };
}

describeMongo('control documents raced by two processes', 'the two-process compare-and-set race on MongoDB', (leg) => {
  it(`of two processes racing for one expired lease, exactly one wins each of ${ROUNDS} rounds`, async function () {
    this.timeout(120_000);
    const seed = Number(process.env['WATCHCAT_RACE_SEED'] ?? 28);
    console.log(`      seed ${seed} (WATCHCAT_RACE_SEED replays it)`);
    const random = seededRandom(seed);
    const database = leg.database('race');
    const setup = await createMongoReadStore(leg.url, database);
    await setup.setControl({ _id: 'lease:race', token: 0, owner: 'nobody', expires_at: 0 }, {}, true);
    await setup.close();
    const racers = [startRacer(leg.url, database, 'a'), startRacer(leg.url, database, 'b')];
    try {
      for (const racer of racers) expect(await racer.next()).to.equal('READY');
      const outcomes = { one: 0, both: 0, none: 0 };
      for (let round = 0; round < ROUNDS; round += 1) {
        // The round is the token every racer last saw; a round two racers both won stays counted once, on the token they wrote.
        for (const racer of racers) racer.child.stdin!.write(`ROUND ${round} ${Math.floor(random() * MAX_SPIN_US)}\n`);
        const wins = (await Promise.all(racers.map((racer) => racer.next()))).filter((line) => line === `WON ${round}`).length;
        outcomes[wins === 1 ? 'one' : wins === 2 ? 'both' : 'none'] += 1;
      }
      expect(outcomes, `seed ${seed}`).to.deep.equal({ one: ROUNDS, both: 0, none: 0 });
    } finally {
      for (const racer of racers) racer.child.stdin!.end();
      await Promise.all(racers.map((racer) => new Promise((resolve) => racer.child.once('exit', resolve))));
    }
  });
});
