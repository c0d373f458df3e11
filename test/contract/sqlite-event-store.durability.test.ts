/**
 * Durability of the SQLite event store: what a killed writer or a torn write-ahead log leaves behind. An append is
 * whole or absent; an acknowledged append is always present.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore, RecordedEvent } from '../../shared/ports/event-store.ts';
import { streams } from '../../shared/ports/event-store.ts';
import { serialReportedStolen } from '../fixtures/events.ts';
import { brokenHashPositions } from '../support/sqlite-hash-chain.ts';
import { seededRandom } from '../../shared/random/seeded-random.ts';
import { readable } from '../support/readable-events.ts';

const APPENDER = fileURLToPath(new URL('../support/kill-child/sqlite-appender.ts', import.meta.url));

async function readEverything(store: EventStore): Promise<RecordedEvent[]> {
  const all: RecordedEvent[] = [];
  for (let after = 0; ;) {
    const batch = readable(await store.readAll({ after, limit: 500 }));
    if (batch.length === 0) return all;
    all.push(...batch);
    after = batch[batch.length - 1]!.position;
  }
}

/** Groups events by the append that wrote them and checks each group is whole: every event, consecutive. */
function wholeAppends(events: RecordedEvent[]): Map<string, RecordedEvent[]> {
  const groups = new Map<string, RecordedEvent[]>();
  for (const event of events) {
    const group = groups.get(event.metadata.correlation_id) ?? [];
    group.push(event);
    groups.set(event.metadata.correlation_id, group);
  }
  for (const [correlation, group] of groups) {
    const size = Number(group[0]!.metadata.causation_id.replace('of-', ''));
    expect(group, `append ${correlation}`).to.have.length(size);
    group.forEach((event, i) => {
      expect(event.position, `position in append ${correlation}`).to.equal(group[0]!.position + i);
      expect(event.revision, `revision in append ${correlation}`).to.equal(group[0]!.revision + i);
    });
  }
  return groups;
}

/** A started appender waiting for its turn; `run` lets it append until killed and answers its acknowledgements. */
interface PendingAppender { run(killAfterMs: number): Promise<Map<string, number>> }

/** Every appender started, so none outlives a failed test. */
const started = new Set<ChildProcess>();

function startAppender(file: string, round: number): PendingAppender {
  const child = spawn(process.execPath, ['--import', 'tsx', APPENDER, file, String(round)], { stdio: ['pipe', 'pipe', 'inherit'] });
  started.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const acks = new Map<string, number>();
  let onFirstAck: () => void = () => undefined;
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const [word, correlation, position] = line.split(' ');
    if (word !== 'ACK') return;
    if (acks.size === 0) onFirstAck();
    acks.set(correlation!, Number(position));
  });
  const kill = () => child.kill('SIGKILL');
  return {
    async run(killAfterMs) {
      onFirstAck = () => setTimeout(kill, killAfterMs);
      // Only a safety net for an appender that never starts: a busy machine can take seconds to load one.
      const guard = setTimeout(kill, 20_000);
      child.stdin!.write('GO\n');
      await exited;
      clearTimeout(guard);
      return acks;
    },
  };
}

describe('SqliteEventStore durability', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(function () {
    dir = mkdtempSync(join(tmpdir(), 'watchcat-durability-'));
  });
  afterEach(function () {
    for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    started.clear();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every acknowledged append and no partial one when the writer is killed at a random moment', async function () {
    const seed = Number(process.env.CRASH_SEED ?? 20250115);
    const random = seededRandom(seed);
    const file = join(dir, 'events.sqlite3');
    const acknowledged = new Map<string, number>();
    const appenders = [0, 1, 2].map((round) => startAppender(file, round));
    for (const [round, appender] of appenders.entries()) {
      const acks = await appender.run(Math.floor(random() * 120));
      expect(acks.size, `round ${round} (seed ${seed}) acknowledged nothing`).to.be.greaterThan(0);
      for (const [correlation, position] of acks) acknowledged.set(correlation, position);

      const store = openSqliteEventStore(file);
      const groups = wholeAppends(await readEverything(store));
      await store.close();
      for (const [correlation, position] of acknowledged) {
        const group = groups.get(correlation);
        expect(group, `acknowledged append ${correlation} is missing (seed ${seed})`).to.not.equal(undefined);
        expect(group![group!.length - 1]!.position).to.equal(position);
      }
      expect(brokenHashPositions(file).broken).to.deep.equal([]);
    }
  });

  it('never shows part of an append when the write-ahead log is torn or its last frame is damaged', async function () {
    const file = join(dir, 'events.sqlite3');
    const store = openSqliteEventStore(file);
    const serials = ['TORN-A', 'TORN-B'];
    await store.append(streams.serial(serials[0]!), [0, 1].map(() => serialReportedStolen(serials[0]!, { correlation_id: 'first', causation_id: 'of-2' })), 'any');
    await store.append(streams.serial(serials[1]!), [0, 1, 2].map(() => serialReportedStolen(serials[1]!, { correlation_id: 'second', causation_id: 'of-3' })), 'any');
    // Both appends are committed but not yet checkpointed: they live only in the WAL, as a crash would leave them.
    const wal = readFileSync(`${file}-wal`);
    const main = readFileSync(file);
    await store.close();

    const visibleAfter = async (walBytes: Buffer): Promise<string[]> => {
      const copy = join(dir, `copy-${walBytes.length}-${walBytes[walBytes.length - 1]}.sqlite3`);
      writeFileSync(copy, main);
      writeFileSync(`${copy}-wal`, walBytes);
      const reopened = openSqliteEventStore(copy);
      try {
        return [...wholeAppends(await readEverything(reopened)).keys()];
      } finally {
        await reopened.close();
      }
    };

    expect(await visibleAfter(wal)).to.deep.equal(['first', 'second']);
    const seen = new Set<string>();
    for (let cut = wal.length - 1; cut >= 32; cut -= 997) {
      const visible = await visibleAfter(wal.subarray(0, cut));
      expect(['', 'first', 'first,second']).to.include(visible.join(','));
      seen.add(visible.join(','));
    }
    expect(seen).to.include('first');
    const damaged = Buffer.from(wal);
    damaged[damaged.length - 100] = damaged[damaged.length - 100]! ^ 0xff;
    expect(await visibleAfter(damaged)).to.deep.equal(['first']);
  });
});
