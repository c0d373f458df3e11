/** The demo catalogue of Maison Aurèle, loaded through the same import as any catalogue file. */
import type { EventStore } from '../../shared/ports/event-store.ts';
import { demoCatalogue } from '../demo/demo-catalogue.ts';
import type { CommandService } from '../write/command-service.ts';
import { importCatalogue } from './import-catalogue.ts';
import type { ImportReport, OnProgress } from './import-progress.ts';

/** The actor of the seed's events: what tells a history holding nothing but the seed. */
const SEED_ACTOR = 'seed';

export function seedDemo(service: CommandService, onProgress?: OnProgress): Promise<ImportReport> {
  return importCatalogue(service, demoCatalogue(), onProgress, { actor: SEED_ACTOR });
}

/**
 * Whether a start with `SEED_DEMO` loads the demo catalogue: when the history is empty, or holds nothing but the
 * seed's own events. The seed is thousands of commands, one append each, so a first start killed or interrupted
 * while seeding leaves part of the catalogue, which the seed (appending only what the store lacks) completes at the
 * next start; after a whole seed it appends nothing. Once anyone else has written (an operator, an import), the
 * catalogue is theirs: it is left as it is, even a partial demo one (`watchcat seed` completes it on demand).
 */
export async function holdsOnlyTheSeed(store: EventStore): Promise<boolean> {
  for (let after = 0; ;) {
    const batch = await store.readAll({ after, limit: 1_000 });
    const last = batch.at(-1);
    if (!last) return true;
    // An event whose metadata this version cannot read is no proof of the seed: the history is left alone.
    if (batch.some((event) => event.metadata?.actor !== SEED_ACTOR)) return false;
    after = last.position;
  }
}
