import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { createCommandService, type CommandService } from '../../services/write/command-service.ts';
import { DomainError } from '../../services/write/domain/domain-error.ts';
import { CatalogueFileError } from '../../services/import/catalogue-validation.ts';
import { importCatalogue } from '../../services/import/import-catalogue.ts';
import type { ImportProgress } from '../../services/import/import-progress.ts';
import { seedDemo, seedLeftUndone } from '../../services/import/seed-demo.ts';
import { demoCatalogue } from '../../services/demo/demo-catalogue.ts';
import { tinyCatalogue } from './support/tiny-catalogue.ts';
import { readable } from '../support/readable-events.ts';
import { appendAsNewerVersion } from '../support/newer-writer.ts';
import { eventMetadata } from '../fixtures/events.ts';
import type { CategoryKey } from '../../shared/events/index.ts';

async function typesOf(store: EventStore, after: number): Promise<string[]> {
  return (await store.readAll({ after, limit: 10_000 })).map((e) => `${e.stream} ${e.type}`);
}

/** `file` with a collection, a watch of it and a configurator of it that the tiny catalogue has not. */
function withSoleil(file: ReturnType<typeof tinyCatalogue>): ReturnType<typeof tinyCatalogue> {
  file.collections.push({ ...file.collections[0]!, code: 'soleil', name: { en: 'Soleil', fr: 'Soleil' } });
  file.watches.push({ ...file.watches[0]!, reference: 'AUR-SO-001', collection: 'soleil', name: { en: 'Soleil', fr: 'Soleil' } });
  file.configurators.push({ ...file.configurators[0]!, collection: 'soleil' });
  return file;
}

describe('catalogue import', () => {
  let store: EventStore;
  let service: CommandService;

  beforeEach(() => {
    store = openSqliteEventStore(':memory:');
    service = createCommandService(store);
  });
  afterEach(() => store.close());

  it('issues the commands that reach the file state, then appends nothing on a second import', async () => {
    const first = await importCatalogue(service, tinyCatalogue());
    expect(await typesOf(store, 0)).to.deep.equal([
      'collection-lumiere CollectionDefined',
      'watch-AUR-LU-001 WatchPublished',
      'watch-AUR-LU-002 WatchPublished',
      'configurator-lumiere ConfiguratorOptionOffered',
      'configurator-lumiere ConfiguratorDefaultChosen',
      'configurator-lumiere ConfiguratorOptionOffered',
      'configurator-lumiere ConfiguratorDefaultChosen',
      'configurator-lumiere ConfiguratorOptionOffered',
      'configurator-lumiere AccessoryOffered',
      'serial-AUR-2024-000001 SerialRegistered',
      'serial-AUR-2023-000002 SerialRegistered',
      'serial-AUR-2023-000002 SerialReportedStolen',
    ]);
    expect(first).to.deep.include({ commands: 10, events: 12, position: await store.headPosition(), warnings: [] });

    const head = await store.headPosition();
    const second = await importCatalogue(service, tinyCatalogue());
    expect(second).to.deep.equal({ commands: 0, events: 0, position: head, warnings: [] });
    expect(await store.headPosition()).to.equal(head);
  });

  it('applies only what changed in the file: a collection\'s diameter, price, stock, texts, option price, default, accessory price, new serial', async () => {
    await importCatalogue(service, tinyCatalogue());
    const head = await store.headPosition();
    const file = tinyCatalogue();
    file.collections[0] = { ...file.collections[0]!, diameter_mm: 39 };
    file.configurators[0]!.accessories[0] = { ...file.configurators[0]!.accessories[0]!, unit_price_cents: 27_500 };
    file.watches[0] = { ...file.watches[0]!, price_cents: 1_300_000, stock_status: 'made_to_order', description: { en: 'New', fr: 'Nouveau' } };
    file.configurators[0]!.categories.dial = [
      { code: 'white', label: { en: 'Snow white', fr: 'Blanc' }, price_cents: 0 },
      { code: 'black', label: { en: 'Black', fr: 'Noir' }, price_cents: 60_000, default: true },
    ];
    file.serials.push({ serial: 'AUR-2025-000003', reference: 'AUR-LU-001', manufacture_year: 2025, stolen: true });

    const report = await importCatalogue(service, file);
    expect(await typesOf(store, head)).to.deep.equal([
      'collection-lumiere CollectionRevised',
      'watch-AUR-LU-001 WatchRevised',
      'watch-AUR-LU-001 WatchPriceChanged',
      'watch-AUR-LU-001 WatchStockChanged',
      'configurator-lumiere ConfiguratorOptionRepriced',
      'configurator-lumiere ConfiguratorDefaultChosen',
      'configurator-lumiere AccessoryRepriced',
      'serial-AUR-2025-000003 SerialRegistered',
      'serial-AUR-2025-000003 SerialReportedStolen',
    ]);
    expect(report.commands).to.equal(9);
    expect(report.warnings, 'no event changes a label').to.deep.equal(['option white in category dial of collection lumiere: label differs; no event changes it, left as it is']);
    // The commands of one import are one correlation, named for it when the caller names none.
    const [correlation, ...others] = new Set((await store.readAll({ after: head, limit: 100 })).map((event) => event.metadata?.correlation_id));
    expect(others, 'one correlation').to.deep.equal([]);
    expect(correlation).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(readable(await store.readStream('collection-lumiere'))[1]?.data).to.deep.equal({ code: 'lumiere', diameter_mm: 39 });
    const revised = readable(await store.readStream('watch-AUR-LU-001'))[1];
    expect(revised?.data).to.deep.equal({ reference: 'AUR-LU-001', description: { en: 'New', fr: 'Nouveau' } });
  });

  it('offers a category default first even when the file lists it later', async () => {
    const file = tinyCatalogue();
    file.configurators[0]!.categories = {
      dial: [
        { code: 'black', label: { en: 'Black', fr: 'Noir' }, price_cents: 50_000 },
        { code: 'white', label: { en: 'White', fr: 'Blanc' }, price_cents: 0, default: true },
      ],
    };
    await importCatalogue(service, file);
    const state = await service.configuratorState('lumiere');
    expect(state.categories.dial?.defaultCode).to.equal('white');
  });

  it('leaves a serial registered for another watch alone and says so, its theft in the file not reported', async () => {
    await importCatalogue(service, tinyCatalogue());
    const head = await store.headPosition();
    const file = tinyCatalogue();
    // The file names the first serial for the other watch, stolen: not the serial the registry holds.
    file.serials[0] = { serial: 'AUR-2024-000001', reference: 'AUR-LU-002', manufacture_year: 2024, stolen: true };
    const report = await importCatalogue(service, file);
    expect(report.commands).to.equal(0);
    expect(await store.headPosition(), 'nothing appended').to.equal(head);
    expect((await service.serialState('AUR-2024-000001')).status).to.equal('registered');
    expect(report.warnings).to.deep.equal([
      'serial AUR-2024-000001 is registered for AUR-LU-001 (2024); left as it is, its theft in the file not reported',
    ]);
    // Another year alone is another serial too; with no theft in the file, none is said to be left unreported.
    file.serials[0] = { serial: 'AUR-2024-000001', reference: 'AUR-LU-001', manufacture_year: 2023 };
    expect((await importCatalogue(service, file)).warnings).to.deep.equal(['serial AUR-2024-000001 is registered for AUR-LU-001 (2024); left as it is']);
    // A theft the registry holds already is not said to be left unreported.
    file.serials[1] = { serial: 'AUR-2023-000002', reference: 'AUR-LU-002', manufacture_year: 2022, stolen: true };
    expect((await importCatalogue(service, file)).warnings).to.deep.equal([
      'serial AUR-2024-000001 is registered for AUR-LU-001 (2024); left as it is',
      'serial AUR-2023-000002 is registered for AUR-LU-002 (2023); left as it is',
    ]);
    expect(await store.headPosition(), 'nothing appended').to.equal(head);
  });

  it('leaves a withdrawn watch alone and says so', async () => {
    await importCatalogue(service, tinyCatalogue());
    await service.withdrawWatch('AUR-LU-002');
    const report = await importCatalogue(service, tinyCatalogue());
    expect(report.commands).to.equal(0);
    expect(report.warnings).to.deep.equal(['watch AUR-LU-002 is withdrawn; left as it is']);
  });

  it('rejects a malformed file with every problem named, and appends nothing', async () => {
    const file = tinyCatalogue() as unknown as { watches: Record<string, unknown>[]; serials: Record<string, unknown>[] };
    file.watches[0]!.price_cents = 'cheap';
    file.serials[1]!.serial = 'bad serial';
    const error = await importCatalogue(service, file).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(CatalogueFileError);
    expect((error as CatalogueFileError).message).to.match(/\/watches\/0\/price_cents must be integer/);
    expect((error as CatalogueFileError).message).to.match(/\/serials\/1\/serial must match pattern/);
    expect(await store.headPosition()).to.equal(0);
  });

  it('rejects a file that lists a serial twice or two defaults in one category', async () => {
    const file = tinyCatalogue();
    file.serials.push({ ...file.serials[0]! });
    file.configurators[0]!.categories.dial![1]!.default = true;
    const error = await importCatalogue(service, file).catch((e: unknown) => e);
    expect((error as CatalogueFileError).problems).to.deep.equal([
      'serial AUR-2024-000001 appears more than once',
      'configurator of collection lumiere, category dial: more than one default option',
    ]);
  });

  it('refuses a file with a text blank once trimmed as a problem of the file, before it appends anything', async () => {
    await importCatalogue(service, tinyCatalogue());
    const before = (await store.readAll({ after: 0, limit: 10_000 })).length;
    // A new collection first, then a watch of it whose name is blank in words only: the schema lets it through.
    const file = withSoleil(tinyCatalogue());
    file.watches[2]!.name = { en: 'Soleil', fr: '  ' };
    const error = await importCatalogue(service, file).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(CatalogueFileError);
    expect((error as CatalogueFileError).problems).to.deep.equal([
      'watches[2].name.fr: Text is blank once trimmed; expected a text with a character other than whitespace',
    ]);
    expect((await store.readAll({ after: 0, limit: 10_000 })).length, 'events appended by a refused import').to.equal(before);
  });

  it('refuses what only the store can tell or refuses (an unknown collection or watch, a withdrawn watch, an event too large for the log) before it appends anything, naming the entry', async () => {
    await importCatalogue(service, tinyCatalogue());
    await service.withdrawWatch('AUR-LU-002');
    const refused = async (change: (file: ReturnType<typeof tinyCatalogue>) => void) => {
      const before = (await store.readAll({ after: 0, limit: 10_000 })).length;
      // Every other entry of the file is new, and would be appended before the refused one is reached.
      const file = withSoleil(tinyCatalogue());
      file.serials.push({ serial: 'AUR-2026-000100', reference: 'AUR-SO-001', manufacture_year: 2025 });
      change(file);
      const error = await importCatalogue(service, file).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(DomainError);
      expect((await store.readAll({ after: 0, limit: 10_000 })).length, 'events appended by a refused import').to.equal(before);
      return (error as DomainError).message;
    };
    expect(await refused((file) => { file.watches.push({ ...file.watches[2]!, reference: 'AUR-SO-002', collection: 'nowhere' }); }))
      .to.equal('watch AUR-SO-002: unknown collection nowhere');
    expect(await refused((file) => { file.configurators.push({ ...file.configurators[0]!, collection: 'nowhere' }); }))
      .to.equal('configurator of collection nowhere: unknown collection nowhere');
    expect(await refused((file) => { file.serials.push({ serial: 'AUR-2024-000009', reference: 'AUR-XX-999', manufacture_year: 2024 }); }))
      .to.equal('serial AUR-2024-000009: unknown watch AUR-XX-999');
    expect(await refused((file) => { file.serials.push({ serial: 'AUR-2024-000010', reference: 'AUR-LU-002', manufacture_year: 2024 }); }))
      .to.equal('serial AUR-2024-000010: watch AUR-LU-002 is withdrawn: no serial can be registered for it');
    // 500 control characters are 3,000 bytes once written (`\u0001` each): 20 of them a language pass every field's
    // bound, and the event is larger than a transparency log entry can be (test/services/entry-fits-bundle.test.ts).
    const escaped = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`key_${String.fromCharCode(97 + i)}`, '\u0001'.repeat(500)]));
    expect(await refused((file) => { file.watches[2]!.specifications = { en: escaped, fr: escaped }; }))
      .to.match(/^watch AUR-SO-001: refused: the event takes \d+ bytes in the transparency log, more than an entry holds \(65535\)$/);
  });

  it('tells its progress entry by entry, each with its pass and phase, out of all the file\'s entries: checked whole, then imported', async () => {
    const progress: ImportProgress[] = [];
    await importCatalogue(service, tinyCatalogue(), (p) => progress.push(p));
    // One collection, two watches, one configurator, two serials.
    const phases = ['collections', 'watches', 'watches', 'configurators', 'serials', 'serials'];
    const pass = (name: string) => phases.map((phase, i) => ({ pass: name, phase, done: i + 1, total: 6 }));
    expect(progress).to.deep.equal([...pass('checking'), ...pass('importing')]);
  });

  it('seeds the demo catalogue with progress up to every entry, and a second seed appends nothing', async () => {
    const progress: ImportProgress[] = [];
    const first = await seedDemo(service, (p) => progress.push(p));
    expect(first.commands).to.be.greaterThan(2_000);
    expect(progress.at(-1)).to.deep.include({ phase: 'serials' });
    expect(progress.at(-1)?.done).to.equal(progress.at(-1)?.total);
    const head = await store.headPosition();
    expect((await seedDemo(service)).commands).to.equal(0);
    expect(await store.headPosition()).to.equal(head);
  });

  it('seeds only what is missing: a second seed undoes no change made since (README.md: "appends only what is missing")', async () => {
    await seedDemo(service);
    const demo = demoCatalogue();
    const watch = demo.watches[0]!;
    const stolen = demo.serials.find((serial) => serial.stolen)!;
    const option = demo.configurators[0]!;
    const [category, offered] = Object.entries(option.categories).find(([, options]) => (options?.length ?? 0) > 1)!;
    const other = offered!.find((o) => !o.default)!;
    // What the back office did since: a price, a stock status, a recovery, an option repriced and made the default,
    // a collection revised, an accessory repriced.
    await service.changeWatchPrice(watch.reference, watch.price_cents + 100, {});
    await service.changeWatchStock(watch.reference, watch.stock_status === 'made_to_order' ? 'in_stock' : 'made_to_order', {});
    await service.recoverSerial(stolen.serial, {});
    const key = { collection: option.collection, category: category as CategoryKey, code: other.code };
    await service.repriceOption(key, other.price_cents + 100, {});
    await service.chooseDefaultOption(key, {});
    const collection = demo.collections[0]!;
    await service.reviseCollection({ code: collection.code, diameter_mm: collection.diameter_mm + 1 }, {});
    const withAccessory = demo.configurators.find((configurator) => configurator.accessories.length > 0)!;
    const accessory = withAccessory.accessories[0]!;
    await service.repriceAccessory({ collection: withAccessory.collection, code: accessory.code }, accessory.unit_price_cents + 100, {});
    const head = await store.headPosition();
    const again = await seedDemo(service);
    expect(await typesOf(store, head), 'events the second seed appended').to.deep.equal([]);
    expect(again.commands).to.equal(0);
    expect((await service.serialState(stolen.serial)).status, 'the recovered watch is not reported stolen again').to.equal('registered');
  });

  it('tells a demo seed left undone (a serial not registered, a theft not reported) from a whole one, and leaves a history others wrote to', async () => {
    expect(await seedLeftUndone(store), 'an empty history').to.equal(true);
    const demo = demoCatalogue();
    const stolen = demo.serials.find((entry) => entry.stolen)!;
    expect(demo.serials.at(-1), 'the last serial is not the stolen one').to.not.equal(stolen);
    // A seed cut short before its last serial.
    await importCatalogue(service, { ...demo, serials: demo.serials.slice(0, -1) }, undefined, { actor: 'seed' });
    expect(await seedLeftUndone(store), 'the last serial not registered').to.equal(true);
    await seedDemo(service);
    expect(await seedLeftUndone(store), 'the whole seed').to.equal(false);
    await service.recoverSerial(stolen.serial);
    expect(await seedLeftUndone(store), 'someone else wrote').to.equal(false);

    // A seed cut short between a stolen serial's registration and its theft report.
    const other = openSqliteEventStore(':memory:');
    try {
      const unreported = { ...demo, serials: demo.serials.map((entry) => (entry === stolen ? { ...entry, stolen: false } : entry)) };
      await importCatalogue(createCommandService(other), unreported, undefined, { actor: 'seed' });
      expect(await seedLeftUndone(other), 'a theft not reported').to.equal(true);
      const completing = createCommandService(other);
      await seedDemo(completing);
      expect((await completing.serialState(stolen.serial)).status, 'the seed reports the theft it had not reported').to.equal('stolen');
      expect(await seedLeftUndone(other), 'the seed completed').to.equal(false);
    } finally {
      other.close();
    }
  });

  describe('a demo seed cut short, then written to by another', () => {
    let dir: string;
    let file: string;
    let cut: EventStore;
    beforeEach(async () => {
      dir = mkdtempSync(join(tmpdir(), 'watchcat-seed-undone-'));
      file = join(dir, 'events.sqlite3');
      cut = openSqliteEventStore(file);
      // The seed stopped after the first of the demo's watches: its serials never registered.
      const demo = demoCatalogue();
      const watch = demo.watches[0]!;
      await importCatalogue(createCommandService(cut), {
        ...demo, collections: demo.collections.filter((c) => c.code === watch.collection), watches: [watch], configurators: [], serials: [],
      }, undefined, { actor: 'seed' });
      expect(await seedLeftUndone(cut), 'the seed cut short').to.equal(true);
    });
    afterEach(async () => {
      await cut.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('is left as it is once an operator has written to it', async () => {
      await createCommandService(cut).changeWatchPrice(demoCatalogue().watches[0]!.reference, 1_234_500);
      expect(await seedLeftUndone(cut)).to.equal(false);
    });

    const newerEvent = (metadata: object) => {
      const reference = demoCatalogue().watches[0]!.reference;
      appendAsNewerVersion(file, `watch-${reference}`, [{ type: 'WatchCertified', data: { reference, certificate: 'COSC' }, metadata }]);
    };

    it('is left as it is once it holds an event this version cannot read, even one whose metadata says the seed wrote it', async () => {
      newerEvent(eventMetadata({ actor: 'seed' }));
      expect(await seedLeftUndone(cut)).to.equal(false);
    });

    it('is left as it is once it holds an event whose metadata does not read', async () => {
      newerEvent({ actor: 7 });
      expect(await seedLeftUndone(cut)).to.equal(false);
    });
  });
});
