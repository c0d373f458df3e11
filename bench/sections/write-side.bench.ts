/**
 * Write side: serial registrations through the command handlers into the SQLite event store (load the serial and
 * watch streams, decide, validate, append with the audit hashes in one IMMEDIATE transaction, synced), against
 * bare inserts of the same rows, one IMMEDIATE transaction each, on a store file opened with the same settings.
 * The two alternate in rounds on their own copies of the demo store; figures are medians of the rounds.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { openEventDatabase } from '../../shared/adapters/sqlite/event-database.ts';
import { chainHash, GENESIS_HASH, streamHash } from '../../shared/adapters/sqlite/event-hash.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { CURRENT_SCHEMA_VERSION } from '../../shared/events/codec.ts';
import { createCommandService } from '../../services/write/command-service.ts';
import { scratchDir } from '../fixtures/bench-dir.ts';
import { copyDemoStore, demoWatches } from '../fixtures/demo-store.ts';
import { median, ratio, round } from '../report/stats.ts';

export interface WriteSideFigures {
  commands: number;
  commands_per_s: number;
  bare_inserts_per_s: number;
  commands_vs_bare: number;
}

export async function benchWriteSide(commands: number, rounds: number): Promise<WriteSideFigures> {
  const scratch = scratchDir('write-side');
  const oursFile = join(scratch.dir, 'ours.sqlite3');
  const bareFile = join(scratch.dir, 'bare.sqlite3');
  await copyDemoStore(oursFile);
  await copyDemoStore(bareFile);
  const store = openSqliteEventStore(oursFile);
  const service = createCommandService(store, { actor: 'bench' });
  const bare = bareInserter(bareFile);
  const watches = demoWatches();
  const perRound = Math.max(1, Math.floor(commands / rounds));
  const ours: number[] = [];
  const bareRates: number[] = [];
  try {
    for (let roundIndex = 0; roundIndex < rounds; roundIndex += 1) {
      const serials = Array.from({ length: perRound }, (_, i) => ({ serial: `WS-${roundIndex}-${i}`, watch: watches[i % watches.length]! }));
      let started = performance.now();
      for (const { serial, watch } of serials) await service.registerSerial(serial, watch.reference, 2024);
      ours.push(perRound / ((performance.now() - started) / 1000));
      started = performance.now();
      for (const { serial, watch } of serials) {
        bare.insert(`serial-${serial}`, 'SerialRegistered', {
          serial, reference: watch.reference, collection: watch.collection, model: watch.model, manufacture_year: 2024,
        });
      }
      bareRates.push(perRound / ((performance.now() - started) / 1000));
    }
  } finally {
    await store.close();
    bare.close();
    scratch.remove();
  }
  const oursRate = median(ours);
  const bareRate = median(bareRates);
  return { commands: perRound * rounds, commands_per_s: round(oursRate), bare_inserts_per_s: round(bareRate), commands_vs_bare: ratio(oursRate, bareRate) };
}

/** One event row per IMMEDIATE transaction, with the metadata and hashes the store writes, and nothing else. */
function bareInserter(file: string): { insert(stream: string, type: string, data: unknown): void; close(): void } {
  const db = openEventDatabase(file);
  const insert = db.prepare('INSERT INTO events (stream, revision, id, type, data, metadata, stream_hash, chain_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  let chain = (db.prepare('SELECT chain_hash FROM events ORDER BY position DESC LIMIT 1').pluck().get() as Buffer | undefined) ?? GENESIS_HASH;
  const write = db.transaction((stream: string, type: string, data: string, metadata: string) => {
    const hash = streamHash(type, data, metadata, GENESIS_HASH);
    const next = chainHash(hash, chain);
    insert.run(stream, 0, randomUUID(), type, data, metadata, hash, next);
    chain = next;
  });
  return {
    insert(stream, type, data) {
      const correlation = randomUUID();
      const metadata = JSON.stringify({
        actor: 'bench', correlation_id: correlation, causation_id: correlation, occurred_at: new Date().toISOString(),
        schema_version: CURRENT_SCHEMA_VERSION,
      });
      write.immediate(stream, type, JSON.stringify(data), metadata);
    },
    close: () => db.close(),
  };
}
