/**
 * Keeps this process's transparency log up to date with the event store and signs a checkpoint each time it
 * grows: on the store's append signal (the SQLite feed polls every few milliseconds), and every second in case a
 * signal is lost, so an appended event is covered by a published checkpoint within about a second.
 *
 * The log is rebuilt from the history at every start, and checked against the last checkpoint signed before (kept
 * by `record`): a history that no longer gives that tree (fewer events, another root for that size) parks the
 * log. It then signs nothing, its routes refuse, and an error is logged: never a checkpoint over a rewritten past.
 */
import type { KeyObject } from 'node:crypto';
import type { Logger } from '../../shared/logging/logger.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { checkpointBody, parseCheckpoint } from '../../shared/transparency/checkpoint.ts';
import { EventLog } from '../../shared/transparency/event-log.ts';
import type { Hash } from '../../shared/transparency/merkle.ts';
import { signNote, verifierKey } from '../../shared/transparency/signed-note.ts';

export interface PublishedCheckpoint {
  size: number;
  root: Hash;
  /** The signed note, as served. */
  note: string;
}

export interface TransparencyLog {
  log: EventLog;
  /** `<name>+<key id>+<key>`, as Go's note.NewVerifier reads it. */
  verifierKey: string;
  /** The latest signed checkpoint; proofs are given against trees no larger. */
  checkpoint(): PublishedCheckpoint;
  /** Why the log is parked (the history no longer gives a tree signed before), or undefined while it serves. */
  parked(): string | undefined;
  stop(): void;
}

/** Where the latest signed checkpoint is kept across starts (checkpoint-file.ts). */
export interface SignedCheckpointRecord {
  /** The note kept, or undefined before the first checkpoint. */
  load(): string | undefined;
  save(note: string): void;
}

export interface LogPublisherOptions {
  store: EventStore;
  /** Without it, nothing is checked at start (tests of one process's life). */
  record?: SignedCheckpointRecord;
  key: KeyObject;
  origin: string;
  logger: Logger;
  /** Catch-up without a signal, in milliseconds (default 1000). */
  intervalMs?: number;
}

/** Why the rebuilt log cannot stand behind the checkpoint signed before, or undefined when it extends it. */
function divergence(log: EventLog, note: string): string | undefined {
  const signed = parseCheckpoint(note.slice(0, note.indexOf('\n\n') + 1));
  if (log.size < signed.size) return `the history holds ${log.size} events, fewer than the ${signed.size} signed before`;
  if (!Buffer.from(log.root(signed.size)).equals(Buffer.from(signed.root))) {
    return `the first ${signed.size} events of the history give another root than the one signed before`;
  }
  return undefined;
}

export async function startTransparencyLog({ store, record, key, origin, logger, intervalMs = 1_000 }: LogPublisherOptions): Promise<TransparencyLog> {
  const log = new EventLog();
  const sign = (size: number): PublishedCheckpoint => {
    const root = log.root(size);
    const note = signNote(checkpointBody({ origin, size, root }), origin, key);
    record?.save(note);
    return { size, root, note };
  };
  const size = await log.catchUp(store);
  const kept = record?.load();
  const parked = kept === undefined ? undefined : divergence(log, kept);
  if (parked) logger.error({ parked }, 'transparency log parked: it signs nothing until the history is restored');
  let published = parked ? { size: 0, root: log.root(0), note: kept! } : sign(size);
  const refresh = async () => {
    if (parked) return;
    const grown = await log.catchUp(store);
    // Tree size never goes down, and one size is signed once (Ed25519 signs the same body the same way anyway).
    if (grown > published.size) published = sign(grown);
  };
  const tryRefresh = () => {
    refresh().catch((error: unknown) => logger.warn({ err: error }, 'transparency log could not catch up'));
  };
  const unsubscribe = store.onAppended(tryRefresh);
  const timer = setInterval(tryRefresh, intervalMs);
  timer.unref();
  return {
    log,
    verifierKey: verifierKey(origin, key),
    checkpoint: () => published,
    parked: () => parked,
    stop: () => {
      clearInterval(timer);
      unsubscribe();
    },
  };
}
