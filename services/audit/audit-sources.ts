/**
 * Where the audit commands find the history with its hashes, from the CLI's configuration: the SQLite file of the
 * embedded store (hashes as stored), or any other store through its port (hashes computed while exporting).
 */
import { existsSync } from 'node:fs';
import { sqliteEventFile } from '../../shared/adapters/event-store.factory.ts';
import type { CliContext } from '../cli/cli-context.ts';
import type { ProgressScale } from './audit-progress.ts';
import type { AuditRecord } from './audit-record.ts';
import { recomputedLinkedRecords, sqliteLinkedRecords, type LinkedRecord } from './linked-history.ts';
import { openSqliteAuditHistory } from './sqlite-audit-reader.ts';

/** A refusal or finding of an audit command: one line for the operator, exit code 1. */
export class AuditError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuditError';
  }
}

export interface HistorySource<T> {
  /** What progress is measured against: the events to expect where they can be counted, else the positions. */
  scale: ProgressScale;
  records: Iterable<T> | AsyncIterable<T>;
  close(): void;
}

export async function linkedHistory(context: CliContext, after: number): Promise<HistorySource<LinkedRecord>> {
  const config = context.config();
  if (config.EVENTSTORE_URL) {
    const store = await context.store({ existing: true });
    return { scale: { from: after, head: await store.headPosition() }, records: recomputedLinkedRecords(store, after), close: () => {} };
  }
  const history = openSqliteHistory(sqliteEventFile(config));
  return { scale: { events: history.count(after) }, records: sqliteLinkedRecords(history, after), close: () => history.close() };
}

/** The stored records of the live store: only the SQLite store keeps the chain. */
export function liveRecords(context: CliContext): HistorySource<AuditRecord> {
  const config = context.config();
  if (config.EVENTSTORE_URL) {
    throw new AuditError('the EventStoreDB store keeps no hash chain to verify: export it and keep the export\'s head hash, then verify exports');
  }
  const history = openSqliteHistory(sqliteEventFile(config));
  return { scale: { events: history.count(0) }, records: history.records(0), close: () => history.close() };
}

function openSqliteHistory(file: string) {
  if (!existsSync(file)) throw new AuditError(`no event store at ${file} (check DATA_DIR)`);
  return openSqliteAuditHistory(file);
}
