/**
 * Strict writer, tolerant reader (docs/api.md, "Honest answers"; ARCHITECTURE.md, "Projections"): what the codec
 * accepts on append, and what it makes of stored events a newer writer may have written. Expected shapes are
 * written out here from the fixtures, not taken from the codec.
 */
import { expect } from 'chai';
import {
  assertValidEvent, decodeStoredEvent, eventReader, InvalidEventError, withoutWriterBounds, type Upcaster,
} from '../../../shared/events/codec.ts';
import type { SerialRegistered, WatchPublished } from '../../../shared/events/index.ts';
import { eventMetadata, serialRegistered, serialReportedStolen, watchPublished } from '../../fixtures/events.ts';

const SERIAL = 'AUR-2019-000777';
const copy = <T>(value: T): T => structuredClone(value);

describe('event codec: strict on write', function () {
  it('accepts an event of the current shape', function () {
    const { type, data, metadata } = serialRegistered(SERIAL);
    expect(() => assertValidEvent(type, data, metadata)).not.to.throw();
  });

  it('refuses a field the schema does not name, in the data, in a nested object and in the metadata', function () {
    const { type, data, metadata } = serialRegistered(SERIAL);
    const cases: [unknown, unknown, RegExp][] = [
      [{ ...data, owner: 'someone' }, metadata, /data must NOT have additional properties/],
      [{ ...data, model: { en: 'Lune', fr: 'Lune', de: 'Mond' } }, metadata, /data\/model must NOT have additional properties/],
      [data, { ...metadata, region: 'eu' }, /metadata must NOT have additional properties/],
    ];
    for (const [badData, badMetadata, message] of cases) {
      expect(() => assertValidEvent(type, badData, badMetadata)).to.throw(InvalidEventError, message);
    }
  });

  it('refuses an event type this version does not know', function () {
    expect(() => assertValidEvent('SerialTransferred', { serial: SERIAL }, eventMetadata()))
      .to.throw(InvalidEventError, /unknown event type/);
  });
});

describe('event codec: tolerant on read', function () {
  it('drops the fields a newer writer added, in the data, in nested objects and in the metadata, and reads the rest', function () {
    const event = serialRegistered(SERIAL);
    const registered = copy(event.data) as SerialRegistered;
    const data = { ...registered, dealer: 'D-42', model: { ...registered.model, de: 'Mond' } };
    const metadata = { ...copy(event.metadata), tenant: 'aurore' };
    expect(decodeStoredEvent(event.type, data, metadata)).to.deep.equal({ data: event.data, metadata: event.metadata });
  });

  it('reads an additive change written under a newer schema_version as the current shape', function () {
    const event = watchPublished('AUR-LU-001', 'lune');
    const data = { ...copy(event.data), strap_width_mm: 20 };
    const decoded = decodeStoredEvent(event.type, data, { ...copy(event.metadata), schema_version: 2 });
    expect(decoded).to.deep.equal({ data: event.data, metadata: { ...event.metadata, schema_version: 2 } });
  });

  it('reads a watch an older version wrote with bounds a writer must now keep: 21 specification keys, a key of 41 letters', function () {
    // The bounds of shared/events/watch.events.ts: at most 20 keys a language, each of 1 to 40 letters or underscores.
    const event = watchPublished('AUR-LU-001', 'lune');
    const published = copy(event.data) as WatchPublished;
    const manyKeys = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`spec_${'abcdefghijklmnopqrstu'[i]}`, '39 mm']));
    const longKey = { ['a'.repeat(41)]: '39 mm' };
    for (const en of [manyKeys, longKey]) {
      const data = { ...published, specifications: { en, fr: published.specifications.fr } };
      expect(() => assertValidEvent(event.type, data, event.metadata)).to.throw(InvalidEventError, /data\/specifications\/en must/);
      expect(decodeStoredEvent(event.type, copy(data), copy(event.metadata))).to.deep.equal({ data, metadata: event.metadata });
    }
  });

  it('answers what does not decode instead of throwing, keeping the metadata when that much decodes', function () {
    const event = serialRegistered(SERIAL);
    const cases: [string, unknown, unknown, { problem: string; metadata: unknown }][] = [
      ['SerialTransferred', { serial: SERIAL }, copy(event.metadata), { problem: 'unknown event type', metadata: event.metadata }],
      [event.type, { serial: SERIAL, reference: 'AUR-LU-001', collection: 'lune', model: { en: 'Lune', fr: 'Lune' }, manufacture_year: 'soon' },
        copy(event.metadata), { problem: 'data/manufacture_year must be integer', metadata: event.metadata }],
      [event.type, undefined, copy(event.metadata), { problem: 'data is not JSON', metadata: event.metadata }],
      [event.type, copy(event.data), undefined, { problem: 'metadata is not JSON', metadata: null }],
      [event.type, copy(event.data), { actor: 'x' }, {
        problem: "metadata must have required property 'correlation_id'; metadata must have required property 'causation_id'; "
          + "metadata must have required property 'occurred_at'; metadata must have required property 'schema_version'",
        metadata: null,
      }],
    ];
    for (const [type, data, metadata, expected] of cases) {
      expect(decodeStoredEvent(type, data, metadata)).to.deep.equal(expected);
    }
  });
});

describe('event codec: upcasting older schema versions (ARCHITECTURE.md, "Tolerant reader, strict writer")', function () {
  // No event of this version needs an upcaster yet (CURRENT_SCHEMA_VERSION is 1), so these tests build the reader of
  // a version 3 whose SerialRegistered had two older shapes: in version 1 a model named once (`model: 'Classique'`)
  // and the year under `year`; version 2 gave the model a text a language; version 3 renamed `year`.
  const current = serialRegistered(SERIAL);
  const { model, manufacture_year: year, ...unchanged } = current.data as SerialRegistered;
  const version1 = { ...unchanged, model: model.en, year };
  const version2 = { ...unchanged, model, year };
  const from1: Upcaster = (data) => {
    const { model: name, ...rest } = data as { model: string };
    return { ...rest, model: { en: name, fr: name } };
  };
  const from2: Upcaster = (data) => {
    const { year: renamed, ...rest } = data as { year: number };
    return { ...rest, manufacture_year: renamed };
  };
  const readerOf3 = eventReader({ currentVersion: 3, byType: { SerialRegistered: { 1: from1, 2: from2 } } });
  const writtenWith = (schema_version: number) => eventMetadata({ schema_version });

  it('upcasts an older event step by step, each from the version it was written with, to the current shape', function () {
    // The model of the fixture is the same in English and French, as the version 1 upcaster makes it.
    expect(model).to.deep.equal({ en: 'Classique', fr: 'Classique' });
    expect(readerOf3(current.type, copy(version1), writtenWith(1))).to.deep.equal({ data: current.data, metadata: writtenWith(1) });
    expect(readerOf3(current.type, copy(version2), writtenWith(2))).to.deep.equal({ data: current.data, metadata: writtenWith(2) });
  });

  it('upcasts no further than the current version: an event of the current version or a later one is read as it is', function () {
    // The reader of version 3 has no upcaster from 3: one asked for would be answered as a problem.
    for (const version of [3, 4]) {
      expect(readerOf3(current.type, copy(current.data), writtenWith(version)))
        .to.deep.equal({ data: current.data, metadata: writtenWith(version) });
    }
  });

  it('answers a missing step as a problem naming the version it is missing from, keeping the metadata', function () {
    const lacking1 = eventReader({ currentVersion: 3, byType: { SerialRegistered: { 2: from2 } } });
    expect(lacking1(current.type, copy(version1), writtenWith(1)))
      .to.deep.equal({ problem: 'no upcaster from schema_version 1', metadata: writtenWith(1) });
    // A type with no upcaster at all, in the same reader.
    const stolen = serialReportedStolen(SERIAL);
    expect(lacking1(stolen.type, copy(stolen.data), writtenWith(2)))
      .to.deep.equal({ problem: 'no upcaster from schema_version 2', metadata: writtenWith(2) });
  });

  it('answers an upcaster that cannot convert the data, or converts it to a shape the current schema refuses, as a problem', function () {
    const refusing: Upcaster = (data) => {
      if (typeof (data as { model: unknown }).model !== 'string') throw new Error('model is not a name');
      return from1(data);
    };
    // An upcaster of version 2 that forgets to rename `year`, which the reader then drops as a field it does not know.
    const forgetting: Upcaster = (data) => data;
    const cases: [Upcaster, Upcaster, number, string][] = [
      [refusing, from2, 1, 'model is not a name'],
      [from1, forgetting, 2, "data must have required property 'manufacture_year'"],
    ];
    for (const [step1, step2, version, problem] of cases) {
      const reader = eventReader({ currentVersion: 3, byType: { SerialRegistered: { 1: step1, 2: step2 } } });
      expect(reader(current.type, copy(version2), writtenWith(version))).to.deep.equal({ problem, metadata: writtenWith(version) });
    }
  });
});

describe('event codec: the schemas a reader compiles (withoutWriterBounds)', function () {
  it('drops maxProperties and propertyNames at every depth, and keeps the properties and patterns named like them', function () {
    const schema = {
      type: 'object',
      maxProperties: 20,
      propertyNames: { pattern: '^[a-z_]{1,40}$' },
      properties: {
        maxProperties: { type: 'integer', maximum: 3 },
        propertyNames: { type: 'array', items: { type: 'object', maxProperties: 2 } },
        note: { anyOf: [{ type: 'string', maxLength: 9 }, { type: 'object', propertyNames: { maxLength: 4 } }] },
      },
      patternProperties: {
        '^x_': { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } },
        propertyNames: { type: 'string' },
      },
      required: ['maxProperties', 'propertyNames'],
      additionalProperties: false,
    };
    const written = copy(schema);
    expect(withoutWriterBounds(schema)).to.deep.equal({
      type: 'object',
      properties: {
        maxProperties: { type: 'integer', maximum: 3 },
        propertyNames: { type: 'array', items: { type: 'object' } },
        note: { anyOf: [{ type: 'string', maxLength: 9 }, { type: 'object' }] },
      },
      patternProperties: {
        '^x_': { type: 'object', additionalProperties: { type: 'string' } },
        propertyNames: { type: 'string' },
      },
      required: ['maxProperties', 'propertyNames'],
      additionalProperties: false,
    });
    expect(schema, 'the schema given is left as it was').to.deep.equal(written);
  });

  it('keeps a null wherever a schema holds one (a const, a default, an enum)', function () {
    const schema = { type: 'object', properties: { note: { const: null, default: null } }, enum: [null, { a: null }] };
    expect(withoutWriterBounds(schema)).to.deep.equal({
      type: 'object', properties: { note: { const: null, default: null } }, enum: [null, { a: null }],
    });
  });
});
