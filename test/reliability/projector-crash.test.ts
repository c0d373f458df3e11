/**
 * SIGKILL of the projector at random points of a large replay (issue 7, item 2). The projector runs in a child
 * process; it is killed at seeded random points, restarted each time, and finally left to finish. Half the
 * rounds kill it from outside at a random moment; the other half make it kill itself right after a random
 * read-store write, which lands between a projection's bulk write and its checkpoint about half of the time. The
 * read models it leaves must equal a clean rebuild of the same history, document for document, in each language.
 *
 * The read store must outlive the killed process for this to mean anything: the child writes to a journaled
 * in-memory store (test/support/journaled-read-store.ts) that keeps every bulk write as MongoDB would, including
 * the state between a projection's write and its checkpoint, and, as a MongoDB leg, to MongoDB itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { ReadStore, StoredDoc } from '../../shared/ports/read-store.ts';
import { readProjectionStates } from '../../shared/read-model/projections/projection-states.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { PROJECTION_NAMES } from '../../shared/read-model/projections/index.ts';
import { spawnTs } from '../support/child-process.ts';
import { openJournaledReadStore } from '../support/journaled-read-store.ts';
import { describeMongo } from '../support/mongodb-leg.ts';
import { createMongoReadStore } from '../../shared/adapters/mongodb-read-store.ts';
import { appendLargeHistory } from '../support/large-history.ts';
import { between, seededRandom } from '../../shared/random/seeded-random.ts';

const CHILD = fileURLToPath(new URL('../support/crash-children/projector-child.ts', import.meta.url));
const KILLS = Number(process.env.CRASH_KILLS ?? 6);
const HISTORY_SIZE = 2_500;
const MONGODB_HISTORY_SIZE = 400;
const BATCH_SIZE = '20';

/** The projected documents, split by language where documents have one: `watches:en`, `watches:fr`, `serials`... */
async function modelsByLanguage(store: ReadStore): Promise<Map<string, StoredDoc[]>> {
  const result = new Map<string, StoredDoc[]>();
  for (const collection of ['watches', 'collections', 'configurators', 'serials'] as const) {
    for (const doc of await store.find(collection, {}, { sort: { _id: 1 } })) {
      const lang = (doc as StoredDoc & { lang?: string }).lang;
      const key = lang ? `${collection}:${lang}` : collection;
      result.set(key, [...(result.get(key) ?? []), doc]);
    }
  }
  return result;
}

/** A read store that outlives the killed child: the journal file, or a MongoDB database. */
interface SurvivingStore {
  /** Where the child writes: its JOURNAL_FILE argument and its environment. */
  child(): { journal: string; env: Record<string, string> };
  /** Starts over from an empty read store. */
  reset(): void;
  open(): Promise<ReadStore>;
}

function crashRounds(suite: Mocha.Suite, historySize: number, survivingStore: (dir: string) => SurvivingStore): void {
  suite.timeout(120_000);
  let dir: string;
  let eventsFile: string;
  let head: number;
  let expected: Map<string, StoredDoc[]>;
  let store: SurvivingStore;

  before(async function () {
    dir = mkdtempSync(join(tmpdir(), 'watchcat-projector-crash-'));
    store = survivingStore(dir);
    eventsFile = join(dir, 'events.sqlite3');
    const eventStore = openSqliteEventStore(eventsFile);
    head = await appendLargeHistory(eventStore, 1_891, historySize);
    const clean = createMemoryReadStore();
    await rebuild({ eventStore, readStore: clean });
    expected = await modelsByLanguage(clean);
    await eventStore.close();
  });
  after(function () {
    rmSync(dir, { recursive: true, force: true });
  });

  it(`after ${KILLS} kills at seeded random points and a restart, the read models equal a clean rebuild in each language`, async function () {
    const seed = Number(process.env.CRASH_SEED ?? 1_891);
    const random = seededRandom(seed);
    let killedMidway = 0;
    const spawnChild = (killAt?: string) => {
      const { journal, env } = store.child();
      return spawnTs(CHILD, [eventsFile, journal, BATCH_SIZE, ...(killAt ? [killAt] : [])], env);
    };
    for (let round = 0; round < KILLS; round++) {
      const fromOutside = round % 2 === 0;
      const child = spawnChild(fromOutside ? '0' : String(between(random, 10, 150)));
      await child.started;
      if (fromOutside) {
        await sleep(between(random, 20, 700));
        await child.kill();
      } else {
        // The kill point is drawn without knowing how much work earlier rounds left: past the end, the run finishes.
        const exited = await child.exited;
        expect(exited === 'SIGKILL' || (exited === 0 && child.lines.includes('DONE')), `round ${round} ended with ${String(exited)}`).to.equal(true);
      }
      if (child.lines.includes('DONE')) {
        // A finished replay leaves nothing to crash into: the next round starts over from an empty read store.
        store.reset();
      } else {
        killedMidway += 1;
      }
      expect(child.lines.filter((line) => !/^(READY \d+|DONE)$/.test(line)), `round ${round} (seed ${seed})`).to.deep.equal([]);
    }
    const last = spawnChild();
    expect(await last.exited, `the last run: ${last.lines.join(' | ')}`).to.equal(0);
    expect(last.lines.at(-1)).to.equal('DONE');
    console.log(`      ${killedMidway} of ${KILLS} kills landed mid-replay of ${historySize} events (seed ${seed})`);
    expect(killedMidway, 'too few kills landed during the replay to prove anything').to.be.at.least(Math.ceil(KILLS / 2));

    const survived = await store.open();
    try {
      const actual = await modelsByLanguage(survived);
      expect([...actual.keys()].sort()).to.deep.equal([...expected.keys()].sort());
      for (const [key, docs] of expected) {
        const got = actual.get(key)!;
        expect(got.length, `${key}: document count`).to.equal(docs.length);
        got.forEach((doc, i) => expect(doc, `${key}: ${doc._id}`).to.deep.equal(docs[i]));
      }
      const states = await readProjectionStates(survived);
      expect(states.map((s) => [s.name, s.position, s.status]).sort()).to.deep.equal(PROJECTION_NAMES.map((name) => [name, head, 'running']).sort());
    } finally {
      await survived.close();
    }
  });
}

describe('SIGKILL of the projector during a large replay (journaled read store standing in for MongoDB)', function () {
  crashRounds(this, HISTORY_SIZE, (dir) => {
    const journal = join(dir, 'read-store.journal');
    return {
      child: () => ({ journal, env: { MONGODB_URL: '' } }),
      reset: () => rmSync(journal, { force: true }),
      open: () => openJournaledReadStore(journal),
    };
  });
});

// FerretDB pays a collection scan per upsert that inserts (README), so the history is smaller over MongoDB.
describeMongo('SIGKILL of the projector during a replay into MongoDB', 'the projector crash test over MongoDB', function (leg) {
  crashRounds(this, MONGODB_HISTORY_SIZE, () => {
    let database = leg.database('crash');
    return {
      child: () => ({ journal: '-', env: { MONGODB_URL: leg.url, MONGODB_DB: database } }),
      reset: () => { database = leg.database('crash'); },
      open: () => createMongoReadStore(leg.url, database),
    };
  });
});
