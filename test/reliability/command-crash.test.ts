/**
 * SIGKILL during a burst of commands (issue 7, item 2): two processes send commands through the command service to
 * one SQLite file, racing on a shared watch, and are killed at seeded random moments, round after round. Every
 * acknowledged command must be in the history after restart, every command exactly once and whole, every stream
 * without a gap or a repeated revision, and the audit hash chain unbroken.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { RecordedEvent } from '../../shared/ports/event-store.ts';
import { createCommandService } from '../../services/write/command-service.ts';
import { importCatalogue } from '../../services/import/import-catalogue.ts';
import { tinyCatalogue } from '../services/support/tiny-catalogue.ts';
import { spawnTs } from '../support/child-process.ts';
import { between, seededRandom } from '../../shared/random/seeded-random.ts';
import { brokenHashPositions } from '../support/sqlite-hash-chain.ts';
import { readableHistory } from '../support/readable-events.ts';

const BURST = fileURLToPath(new URL('../support/crash-children/command-burst.ts', import.meta.url));
const WATCH = 'AUR-LU-001';
const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 3);


describe('SIGKILL during a burst of commands on the SQLite store', function () {
  this.timeout(90_000);
  let dir: string;
  let file: string;

  before(async function () {
    dir = mkdtempSync(join(tmpdir(), 'watchcat-command-crash-'));
    file = join(dir, 'events.sqlite3');
    const store = openSqliteEventStore(file);
    await importCatalogue(createCommandService(store), tinyCatalogue());
    await store.close();
  });
  after(function () {
    rmSync(dir, { recursive: true, force: true });
  });

  it(`keeps every acknowledged command, each exactly once and whole, across ${ROUNDS} killed rounds of two racing writers`, async function () {
    const seed = Number(process.env.CRASH_SEED ?? 7_2025);
    const random = seededRandom(seed);
    const acknowledged = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round++) {
      const workers = [1, 2].map((w) => spawnTs(BURST, [file, `r${round}w${w}`, WATCH]));
      await Promise.all(workers.map((w) => w.started));
      await Promise.all(workers.map(async (worker) => {
        await sleep(between(random, 30, 250));
        await worker.kill();
      }));
      for (const worker of workers) {
        expect(worker.lines.filter((line) => line !== 'READY'), `round ${round}: the child failed (seed ${seed})`).to.deep.equal([]);
        for (const [id, position] of worker.acks) acknowledged.set(id, position);
      }

      const store = openSqliteEventStore(file);
      const events = await readableHistory(store);
      const byCommand = new Map<string, RecordedEvent[]>();
      for (const event of events.filter((e) => e.metadata.actor.startsWith('crash-test-'))) {
        byCommand.set(event.metadata.correlation_id, [...(byCommand.get(event.metadata.correlation_id) ?? []), event]);
      }
      for (const [id, position] of acknowledged) {
        const written = byCommand.get(id);
        expect(written, `acknowledged command ${id} is missing after round ${round} (seed ${seed})`).to.not.equal(undefined);
        expect(written!.map((e) => e.position), `command ${id}`).to.deep.equal([position]);
      }
      for (const [id, written] of byCommand) expect(written, `command ${id} written more than once (seed ${seed})`).to.have.length(1);
      const revisions = new Map<string, number[]>();
      for (const event of events) revisions.set(event.stream, [...(revisions.get(event.stream) ?? []), event.revision]);
      for (const [stream, seen] of revisions) expect(seen, stream).to.deep.equal(seen.map((_, i) => i));
      const lastPrice = events.filter((e) => e.type === 'WatchPriceChanged').at(-1);
      if (lastPrice?.type === 'WatchPriceChanged') {
        const state = await createCommandService(store).watchState(WATCH);
        expect(state.status === 'published' ? state.watch.price_cents : state.status, 'the watch folds to its last price')
          .to.equal(lastPrice.data.price_cents);
      }
      await store.close();
      expect(brokenHashPositions(file).broken, `hash chain after round ${round}`).to.deep.equal([]);
    }
    console.log(`      ${acknowledged.size} acknowledged commands over ${ROUNDS} killed rounds (seed ${seed})`);
    expect(acknowledged.size).to.be.above(ROUNDS * 2);
  });
});
