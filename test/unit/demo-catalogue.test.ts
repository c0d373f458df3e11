import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { expect } from 'chai';
import { CatalogueFile } from '../../services/catalogue/catalogue-file.ts';
import { DEMO_SERIALS, demoCatalogue } from '../../services/demo/demo-catalogue.ts';
import { STOCK_STATUSES } from '../../shared/events/index.ts';
import { fold } from '../../shared/text/fold.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const validateCatalogue = addFormats(new Ajv({ allErrors: true, strict: false })).compile(CatalogueFile as object);
const ACCENTED = /[éèêàâçôœùûîï]/i;

describe('demo catalogue', () => {
  const catalogue = demoCatalogue();
  const { collections, watches, configurators, serials } = catalogue;

  it('is a valid catalogue file', () => {
    const valid = validateCatalogue(catalogue);
    expect(validateCatalogue.errors ?? [], JSON.stringify(validateCatalogue.errors?.slice(0, 3))).to.deep.equal([]);
    expect(valid).to.equal(true);
  });

  it('is rejected by the same validation once a serial breaks its pattern', () => {
    const broken = demoCatalogue();
    broken.serials[0] = { ...broken.serials[0]!, serial: 'bad serial!' };
    expect(validateCatalogue(broken)).to.equal(false);
  });

  it('is the same on every call, and each call gives an independent copy', () => {
    const again = demoCatalogue();
    expect(again).to.deep.equal(catalogue);
    again.watches[0]!.name.en = 'changed';
    expect(demoCatalogue().watches[0]!.name.en).to.not.equal('changed');
  });

  it('has at least six collections of at least five distinct types, with unique codes', () => {
    expect(collections.length).to.be.at.least(6);
    expect(new Set(collections.map((c) => c.type)).size).to.be.at.least(5);
    expect(new Set(collections.map((c) => c.code)).size).to.equal(collections.length);
  });

  it('has at least sixty watches, ten or more per collection, each in a defined collection', () => {
    expect(watches.length).to.be.at.least(60);
    const codes = new Set(collections.map((c) => c.code));
    for (const watch of watches) expect(codes.has(watch.collection), watch.reference).to.equal(true);
    for (const code of codes) expect(watches.filter((w) => w.collection === code).length, code).to.be.at.least(10);
  });

  it('gives every watch a unique reference and distinct names and descriptions in each language', () => {
    expect(new Set(watches.map((w) => w.reference)).size).to.equal(watches.length);
    for (const lang of ['en', 'fr'] as const) {
      expect(new Set(watches.map((w) => w.name[lang])).size, `names ${lang}`).to.equal(watches.length);
      expect(new Set(watches.map((w) => w.short_description[lang])).size, `short ${lang}`).to.equal(watches.length);
      expect(new Set(watches.map((w) => w.description[lang])).size, `descriptions ${lang}`).to.equal(watches.length);
    }
    for (const watch of watches) expect(watch.description.fr, watch.reference).to.not.equal(watch.description.en);
  });

  it('gives every watch full texts: specifications, a main image, three to six features, SEO in both languages', () => {
    const specKeys = ['case_diameter', 'case_material', 'case_thickness', 'water_resistance', 'movement', 'calibre', 'power_reserve', 'crystal', 'strap'];
    for (const watch of watches) {
      for (const lang of ['en', 'fr'] as const) {
        expect(watch.specifications[lang], `${watch.reference} ${lang}`).to.include.all.keys(specKeys);
        expect(watch.features[lang].length, `${watch.reference} ${lang}`).to.be.within(3, 6);
        expect(watch.seo.keywords[lang].length, watch.reference).to.be.at.least(3);
        expect(watch.description[lang].length, watch.reference).to.be.above(150);
      }
      expect(watch.features.en.length).to.equal(watch.features.fr.length);
      expect(watch.images.filter((image) => image.role === 'main')).to.have.length(1);
      expect(watch.images.some((image) => image.role === 'gallery' || image.role === 'detail'), watch.reference).to.equal(true);
      for (const image of watch.images) expect(image.path.startsWith(`/images/watches/${watch.reference}/`)).to.equal(true);
      expect(watch.manufacture.origin.fr).to.not.equal(watch.manufacture.origin.en);
    }
  });

  it('writes French with its accents, and has an "Édition" that accent-insensitive search can find', () => {
    for (const watch of watches) expect(ACCENTED.test(watch.description.fr), watch.reference).to.equal(true);
    for (const collection of collections) expect(ACCENTED.test(collection.description.fr), collection.code).to.equal(true);
    const editions = watches.filter((w) => w.name.fr.includes('Édition') || w.description.fr.includes('Édition'));
    expect(editions.length).to.be.at.least(1);
    expect(editions.every((w) => fold(w.name.fr + w.description.fr).includes('edition'))).to.equal(true);
  });

  it('mixes every stock status, mostly customizable watches and realistic prices in cents', () => {
    for (const status of STOCK_STATUSES) expect(watches.some((w) => w.stock_status === status), status).to.equal(true);
    const customizable = watches.filter((w) => w.customizable).length;
    expect(customizable).to.be.above(watches.length / 2).and.below(watches.length);
    for (const watch of watches) expect(watch.price_cents, watch.reference).to.be.within(4_500_00, 180_000_00);
  });

  it('gives every collection exactly one configurator, and every offered category exactly one default', () => {
    expect(configurators.map((c) => c.collection).sort()).to.deep.equal(collections.map((c) => c.code).sort());
    for (const entry of configurators) {
      const offered = Object.entries(entry.categories);
      expect(offered.length, entry.collection).to.be.at.least(4);
      for (const [key, options] of offered) {
        expect(options?.length, `${entry.collection}.${key}`).to.be.within(2, 5);
        expect(options?.filter((o) => o.default === true), `${entry.collection}.${key}`).to.have.length(1);
        expect(new Set(options?.map((o) => o.code)).size, `${entry.collection}.${key}`).to.equal(options?.length);
      }
      expect(entry.accessories.length, entry.collection).to.be.within(2, 4);
      for (const accessory of entry.accessories) expect(accessory.max_quantity).to.be.at.least(1);
    }
  });

  it('offers tachymeter and pushers in the chronograph collection only', () => {
    const typeOf = new Map(collections.map((c) => [c.code, c.type]));
    const chronograph = configurators.find((c) => typeOf.get(c.collection) === 'chronograph');
    expect(chronograph?.categories).to.include.all.keys('tachymeter', 'pushers');
    for (const entry of configurators.filter((c) => typeOf.get(c.collection) === 'dress')) {
      expect(entry.categories).to.not.have.any.keys('tachymeter', 'pushers');
    }
  });

  it('registers at least 2,000 unique serials of published watches, a few of them stolen', () => {
    expect(serials.length).to.be.at.least(2000);
    expect(new Set(serials.map((s) => s.serial)).size).to.equal(serials.length);
    const references = new Set(watches.map((w) => w.reference));
    for (const entry of serials) expect(references.has(entry.reference), entry.serial).to.equal(true);
    expect(serials.filter((s) => s.stolen).length).to.be.within(5, 10);
    expect(new Set(serials.map((s) => s.manufacture_year)).size).to.be.at.least(5);
    expect(new Set(serials.map((s) => s.reference)).size).to.equal(references.size);
  });

  it('holds the documented serials: one authentic, one stolen, and one never registered', () => {
    const bySerial = new Map(serials.map((s) => [s.serial, s]));
    expect(bySerial.get(DEMO_SERIALS.authentic)?.stolen ?? false).to.equal(false);
    expect(bySerial.get(DEMO_SERIALS.stolen)?.stolen).to.equal(true);
    expect(bySerial.has(DEMO_SERIALS.notFound)).to.equal(false);
  });
});
