/**
 * A catalogue import that meets a refused command stops there (import-catalogue.ts, `importCatalogue`): the caller is
 * told of the refusal (the admin API answers it, the CLI exits 1) and must be able to take that answer as the end of
 * the import. Serials go through several at a time; once one is refused, no other serial of the file may be started,
 * and the refusal is answered only once the ones already under way have landed, so that nothing is appended after the
 * caller was told the import stopped (a theft, a registration the registry then answers AUTHENTIC for).
 * The import rehearses its file before it appends (test/services/import-catalogue.test.ts), so a refusal reaches the
 * real run only when another writer changed the store in between: here, one that withdraws the serial's watch.
 */
import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { createCommandService, type CommandService } from '../../services/write/command-service.ts';
import { DomainError } from '../../services/write/domain/domain-error.ts';
import { importCatalogue } from '../../services/import/import-catalogue.ts';
import { tinyCatalogue } from './support/tiny-catalogue.ts';

describe('catalogue import refused on a serial', () => {
  let store: EventStore;

  beforeEach(() => {
    store = openSqliteEventStore(':memory:');
  });
  afterEach(() => store.close());

  it('appends nothing once the refusal is answered, and starts no serial after it', async () => {
    const real = createCommandService(store);
    await importCatalogue(real, { ...tinyCatalogue(), serials: [] });
    const file = tinyCatalogue();
    const refused = { serial: 'AUR-2024-000009', reference: 'AUR-LU-002', manufacture_year: 2024 };
    // Another writer withdraws the watch once the rehearsal has passed, as the real run begins (its first read).
    let withdrawn = false;
    const service: CommandService = {
      ...real,
      collectionState: async (code) => {
        if (!withdrawn) await real.withdrawWatch(refused.reference);
        withdrawn = true;
        return real.collectionState(code);
      },
    };
    const after = Array.from({ length: 40 }, (_, i) => ({
      serial: `AUR-2024-1${String(i).padStart(5, '0')}`, reference: 'AUR-LU-001', manufacture_year: 2024, stolen: i % 2 === 0,
    }));
    file.serials = [refused, ...after];

    const error = await importCatalogue(service, file).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(DomainError);
    expect((error as DomainError).message).to.equal('serial AUR-2024-000009: watch AUR-LU-002 is withdrawn: no serial can be registered for it');
    const headWhenRefused = await store.headPosition();
    await sleep(300);
    // Nothing lands after the caller was told the import stopped.
    expect(await store.headPosition(), 'events appended after the refusal was answered').to.equal(headWhenRefused);
    // At most the serials already under way beside the refused one (8 at a time) went through; not the rest of the file.
    const serialStreams = new Set((await store.readAll({ after: 0, limit: 10_000 }))
      .filter((event) => event.stream.startsWith('serial-')).map((event) => event.stream));
    expect(serialStreams.size, 'serials registered despite the refusal').to.be.at.most(7);
  });
});
