/**
 * Strict writer, tolerant reader (docs/api.md, "Honest answers"; ARCHITECTURE.md, "Projections"): what the codec
 * accepts on append, and what it makes of stored events a newer writer may have written. Expected shapes are
 * written out here from the fixtures, not taken from the codec.
 */
import { expect } from 'chai';
import { assertValidEvent, decodeStoredEvent, InvalidEventError } from '../../../shared/events/codec.ts';
import type { SerialRegistered, WatchPublished } from '../../../shared/events/index.ts';
import { eventMetadata, serialRegistered, watchPublished } from '../../fixtures/events.ts';

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
