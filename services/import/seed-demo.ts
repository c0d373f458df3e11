/** The demo catalogue of Maison Aurèle, loaded through the same import as any catalogue file. */
import { isUnreadable, type EventStore, type StoredEvent, type StoredEventText } from '../../shared/ports/event-store.ts';
import { isEventType } from '../../shared/events/index.ts';
import { demoCatalogue } from '../demo/demo-catalogue.ts';
import type { CommandService } from '../write/command-service.ts';
import { importCatalogue } from './import-catalogue.ts';
import type { ImportReport, OnProgress } from './import-progress.ts';

/** The actor of the seed's events: what tells a history holding nothing but the seed. */
const SEED_ACTOR = 'seed';

/** Adds what the demo catalogue has and the store lacks; changes nothing the store holds (a price set since stays). */
export function seedDemo(service: CommandService, onProgress?: OnProgress): Promise<ImportReport> {
  return importCatalogue(service, demoCatalogue(), onProgress, { actor: SEED_ACTOR, missingOnly: true });
}

/** What the check reads of an event: who wrote it, and which serial a serial's event is of. */
interface Written { position: number; actor: string | undefined; type: string; serial: string | undefined }

const parsed = (text: string): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value as Record<string, unknown> : undefined;
  } catch {
    return undefined;
  }
};

const SERIAL_EVENTS = new Set(['SerialRegistered', 'SerialReportedStolen']);

const ofText = ({ position, type, data, metadata }: StoredEventText): Written => {
  // A type this version does not know (a newer writer's) is an event it cannot read, whoever says they wrote it.
  if (!isEventType(type)) return { position, actor: undefined, type, serial: undefined };
  const actor = parsed(metadata)?.['actor'];
  const serial = SERIAL_EVENTS.has(type) ? parsed(data)?.['serial'] : undefined;
  return { position, actor: typeof actor === 'string' ? actor : undefined, type, serial: typeof serial === 'string' ? serial : undefined };
};

// An event this version cannot read is no proof of the seed: its actor is not told, and the history is left alone.
const ofEvent = (event: StoredEvent): Written => {
  const { position, type } = event;
  if (isUnreadable(event)) return { position, actor: undefined, type, serial: undefined };
  return { position, actor: event.metadata.actor, type, serial: SERIAL_EVENTS.has(type) && 'serial' in event.data ? event.data.serial : undefined };
};

/**
 * A batch of the history as written: from the stored texts where the engine keeps them (SQLite), so that a check
 * made at every start compiles no event schema (the event validators cost hundreds of milliseconds a process:
 * bench/README.md, "Start time"); else decoded.
 */
async function writtenAfter(store: EventStore, after: number, limit: number): Promise<Written[]> {
  if (store.readStoredTexts) return (await store.readStoredTexts({ after, limit })).map(ofText);
  return (await store.readAll({ after, limit })).map(ofEvent);
}

/**
 * Whether a start with `SEED_DEMO` loads the demo catalogue: when the history is empty, or holds nothing but the
 * seed's own events and not all of them. The seed is thousands of commands, one append each, so a first start killed
 * or interrupted while seeding leaves part of the catalogue, which the seed (appending only what the store lacks)
 * completes at the next start. Its last phase registers the serials, each reported stolen right after when the demo
 * says so (import-catalogue.ts): a seed is whole once each demo serial is registered and each stolen one reported.
 * Told from one pass over the history rather than by running the import again, whose reads of every entry's state
 * would add most of a second to each start; a history whose newest event is not the seed's costs one read. Once
 * anyone else has written (an operator, an import), the catalogue is theirs: it is left as it is, even a partial demo
 * one (`watchcat seed` completes it on demand).
 */
export async function seedLeftUndone(store: EventStore): Promise<boolean> {
  const head = await store.headPosition();
  if (head === 0) return true;
  if ((await writtenAfter(store, head - 1, 1))[0]?.actor !== SEED_ACTOR) return false;
  const registered = new Set<string>();
  const stolen = new Set<string>();
  for (let after = 0; ;) {
    const written = await writtenAfter(store, after, 1_000);
    if (written.length === 0) break;
    for (const { actor, type, serial } of written) {
      if (actor !== SEED_ACTOR) return false;
      if (serial !== undefined) (type === 'SerialRegistered' ? registered : stolen).add(serial);
    }
    after = written.at(-1)!.position;
  }
  return demoCatalogue().serials.some((entry) => !registered.has(entry.serial) || (entry.stolen && !stolen.has(entry.serial)));
}
