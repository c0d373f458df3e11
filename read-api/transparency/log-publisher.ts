/**
 * Keeps this process's transparency log up to date with the event store and signs a checkpoint each time it
 * grows: on the store's append signal (the SQLite feed polls every few milliseconds), and every second in case a
 * signal is lost, so an appended event is covered by a published checkpoint within about a second.
 */
import type { KeyObject } from 'node:crypto';
import type { Logger } from '../../shared/logging/logger.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { checkpointBody } from '../../shared/transparency/checkpoint.ts';
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
  origin: string;
  /** `<name>+<key id>+<key>`, as Go's note.NewVerifier reads it. */
  verifierKey: string;
  /** The latest signed checkpoint; proofs are given against trees no larger. */
  checkpoint(): PublishedCheckpoint;
  /** Catches up and signs now (a test, a tool that just appended). */
  refresh(): Promise<PublishedCheckpoint>;
  stop(): void;
}

export interface LogPublisherOptions {
  store: EventStore;
  key: KeyObject;
  origin: string;
  logger: Logger;
  /** Catch-up without a signal, in milliseconds (default 1000). */
  intervalMs?: number;
}

export async function startTransparencyLog({ store, key, origin, logger, intervalMs = 1_000 }: LogPublisherOptions): Promise<TransparencyLog> {
  const log = new EventLog();
  const sign = (size: number): PublishedCheckpoint => {
    const root = log.root(size);
    return { size, root, note: signNote(checkpointBody({ origin, size, root }), origin, key) };
  };
  let published = sign(await log.catchUp(store));
  const refresh = async () => {
    const size = await log.catchUp(store);
    // Tree size never goes down, and one size is signed once (Ed25519 signs the same body the same way anyway).
    if (size > published.size) published = sign(size);
    return published;
  };
  const tryRefresh = () => {
    refresh().catch((error: unknown) => logger.warn({ err: error }, 'transparency log could not catch up'));
  };
  const unsubscribe = store.onAppended(tryRefresh);
  const timer = setInterval(tryRefresh, intervalMs);
  timer.unref();
  return {
    log,
    origin,
    verifierKey: verifierKey(origin, key),
    checkpoint: () => published,
    refresh,
    stop: () => {
      clearInterval(timer);
      unsubscribe();
    },
  };
}
