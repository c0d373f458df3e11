/**
 * One rule, one answer: what the write side refuses in an entry of a catalogue file whatever the store holds, the
 * file's check (`import --check`, services/import/catalogue-validation.ts) refuses too, at the entry's place, and
 * what one takes the other takes. Each bad entry below goes through both: the check of a file holding it, and the
 * command an import would send for it. A rule changed on one side alone fails here.
 */
import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { CategoryKey, LocalizedText } from '../../shared/events/index.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { CatalogueFileError, validateCatalogueFile } from '../../services/import/catalogue-validation.ts';
import { createCommandService, type CommandService } from '../../services/write/command-service.ts';
import { DomainError } from '../../services/write/domain/domain-error.ts';
import { rejectionOf } from '../support/rejection.ts';
import { aCollection, anAccessory, anOption, aWatch } from '../unit/services/support/builders.ts';
import { tinyCatalogue } from './support/tiny-catalogue.ts';

type File = ReturnType<typeof tinyCatalogue>;

/** Noon on 15 June 2026: the latest year begun anywhere is 2026. */
const NOW = new Date('2026-06-15T12:00:00Z');
const LATEST_YEAR = 2026;

/** The problems the file's check finds in the tiny catalogue once `change` is made to it. */
function checked(change: (file: File) => void): string[] {
  const file = tinyCatalogue();
  change(file);
  try {
    validateCatalogueFile(file, LATEST_YEAR);
    return [];
  } catch (error) {
    if (!(error instanceof CatalogueFileError)) throw error;
    return error.problems;
  }
}

/** `text` with its `lang` side blank in words only. */
const blankIn = (text: LocalizedText, lang: 'en' | 'fr'): LocalizedText => ({ ...text, [lang]: ' \t ' });

describe('the catalogue file check and the write side refuse the same entries', () => {
  let store: EventStore;
  let service: CommandService;
  beforeEach(async () => {
    store = openSqliteEventStore(':memory:');
    service = createCommandService(store, { clock: () => NOW });
    await service.defineCollection(aCollection());
    await service.publishWatch(aWatch());
  });
  afterEach(() => store.close());

  async function refusedByWriteSide(command: Promise<unknown>, message: string | RegExp): Promise<void> {
    const error = await rejectionOf(command);
    expect(error).to.be.instanceOf(DomainError);
    expect((error as DomainError).kind).to.equal('invalid');
    if (typeof message === 'string') expect((error as DomainError).message).to.equal(message);
    else expect((error as DomainError).message).to.match(message);
  }

  it('takes the tiny catalogue on both sides (a control: the cases below are refused for what they change)', async () => {
    expect(checked(() => undefined)).to.deep.equal([]);
    await service.offerOption(anOption());
    await service.offerAccessory(anAccessory());
    await service.registerSerial('AUR-2026-000001', 'AUR-LU-001', LATEST_YEAR);
  });

  it('a collection text blank once trimmed', async () => {
    for (const field of ['name', 'short_description', 'description'] as const) {
      const text = blankIn(aCollection()[field], 'en');
      expect(checked((file) => { file.collections[0]![field] = text; })).to.deep.equal([
        `collections[0].${field}.en: Text is blank once trimmed; expected a text with a character other than whitespace`,
      ]);
      await refusedByWriteSide(service.defineCollection(aCollection({ code: 'soleil', [field]: text })), `${field} is empty in en`);
      await refusedByWriteSide(service.reviseCollection({ code: 'lumiere', [field]: text }), `${field} is empty in en`);
    }
  });

  it('a watch text blank once trimmed, wherever the deciders look', async () => {
    const watch = aWatch();
    const places: [string, (text: LocalizedText) => Partial<typeof watch>, LocalizedText][] = [
      ['name', (name) => ({ name }), watch.name],
      ['short_description', (short_description) => ({ short_description }), watch.short_description],
      ['description', (description) => ({ description }), watch.description],
      ['seo.title', (title) => ({ seo: { ...watch.seo, title } }), watch.seo.title],
      ['seo.description', (description) => ({ seo: { ...watch.seo, description } }), watch.seo.description],
      ['manufacture.origin', (origin) => ({ manufacture: { ...watch.manufacture, origin } }), watch.manufacture.origin],
    ];
    for (const [place, change, text] of places) {
      const blank = change(blankIn(text, 'fr'));
      expect(checked((file) => { file.watches[1] = { ...file.watches[1]!, ...blank }; }), place).to.deep.equal([
        `watches[1].${place}.fr: Text is blank once trimmed; expected a text with a character other than whitespace`,
      ]);
      await refusedByWriteSide(service.publishWatch(aWatch({ reference: 'AUR-LU-002', ...blank })), `${place} is empty in fr`);
      await refusedByWriteSide(service.reviseWatch({ reference: 'AUR-LU-001', ...blank }), `${place} is empty in fr`);
    }
  });

  it('an option or accessory label blank once trimmed', async () => {
    const label = blankIn(anOption().label, 'fr');
    expect(checked((file) => { file.configurators[0]!.categories.dial![0]!.label = label; })).to.deep.equal([
      'configurators[0].categories.dial[0].label.fr: Text is blank once trimmed; expected a text with a character other than whitespace',
    ]);
    await refusedByWriteSide(service.offerOption(anOption({ label })), 'label is empty in fr');
    expect(checked((file) => { file.configurators[0]!.accessories[0]!.label = label; })).to.deep.equal([
      'configurators[0].accessories[0].label.fr: Text is blank once trimmed; expected a text with a character other than whitespace',
    ]);
    await refusedByWriteSide(service.offerAccessory(anAccessory({ label })), 'label is empty in fr');
  });

  it('a manufacture year after the latest year begun, by the clock of the one who judges it', async () => {
    expect(checked((file) => { file.serials[0]!.manufacture_year = LATEST_YEAR + 1; })).to.deep.equal([
      `serials[0].manufacture_year: ${LATEST_YEAR + 1} is in the future: the latest year begun anywhere is ${LATEST_YEAR}; `
        + `expected a whole year from 1800 to ${LATEST_YEAR}`,
    ]);
    await refusedByWriteSide(service.registerSerial('AUR-2027-000001', 'AUR-LU-001', LATEST_YEAR + 1), new RegExp(`^manufacture year ${LATEST_YEAR + 1} is in the future`));
  });

  it('a configurator category that is not one of the eleven', async () => {
    const option = { code: 'leather', label: { en: 'Leather', fr: 'Cuir' }, price_cents: 0 };
    expect(checked((file) => { (file.configurators[0]!.categories as Record<string, unknown>)['strap'] = [option]; }))
      .to.deep.equal(['/configurators/0/categories/strap is not a property of this entry']);
    await refusedByWriteSide(service.offerOption({ collection: 'lumiere', category: 'strap' as CategoryKey, ...option }), /^refused: .*category/);
  });
});
