/** The demo catalogue of Maison Aurèle, loaded through the same import as any catalogue file. */
import { isUnreadable, type EventStore, type RecordedEvent, type StoredEvent } from '../../shared/ports/event-store.ts';
import { demoCatalogue } from '../demo/demo-catalogue.ts';
import type { CommandService } from '../write/command-service.ts';
import { importCatalogue } from './import-catalogue.ts';
import type { ImportReport, OnProgress } from './import-progress.ts';

/** The actor of the seed's events: what tells a history holding nothing but the seed. */
const SEED_ACTOR = 'seed';

export function seedDemo(service: CommandService, onProgress?: OnProgress): Promise<ImportReport> {
  return importCatalogue(service, demoCatalogue(), onProgress, { actor: SEED_ACTOR });
}

/** Whether `event` is the seed's own; one this version cannot read is no proof of it: the history is left alone. */
const bySeed = (event: StoredEvent | undefined): event is RecordedEvent =>
  event !== undefined && !isUnreadable(event) && event.metadata.actor === SEED_ACTOR;

/**
 * Whether a start with `SEED_DEMO` loads the demo catalogue: when the history is empty, or holds nothing but the
 * seed's own events and not all of them. The seed is thousands of commands, one append each, so a first start killed
 * or interrupted while seeding leaves part of the catalogue, which the seed (appending only what the store lacks)
 * completes at the next start. Its last phase registers the serials, each reported stolen right after when the demo
 * says so (import-catalogue.ts): a seed is whole once each demo serial is registered and each stolen one reported.
 * Told from one pass over the history rather than by running the import again, whose reads of every entry's state
 * would add most of a second to each start (bench/README.md, "Start time"); a history whose newest event is not the
 * seed's costs one read. Once anyone else has written (an
 * operator, an import), the catalogue is theirs: it is left as it is, even a partial demo one (`watchcat seed`
 * completes it on demand).
 */
export async function seedLeftUndone(store: EventStore): Promise<boolean> {
  const head = await store.headPosition();
  if (head === 0) return true;
  // The newest event first, so that a history someone else wrote to last costs one read at each start, not a pass.
  if (!bySeed((await store.readAll({ after: head - 1, limit: 1 }))[0])) return false;
  const registered = new Set<string>();
  const stolen = new Set<string>();
  for (let after = 0; ;) {
    const batch = await store.readAll({ after, limit: 1_000 });
    const last = batch.at(-1);
    if (!last) break;
    for (const event of batch) {
      if (!bySeed(event)) return false;
      if (event.type === 'SerialRegistered') registered.add(event.data.serial);
      if (event.type === 'SerialReportedStolen') stolen.add(event.data.serial);
    }
    after = last.position;
  }
  return demoCatalogue().serials.some((entry) => !registered.has(entry.serial) || (entry.stolen && !stolen.has(entry.serial)));
}
