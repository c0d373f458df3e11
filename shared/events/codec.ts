/**
 * Validation of events on their way into and out of the event store, and the one place where older schema
 * versions are upcast, so deciders and projections only ever see the current shape.
 *
 * Strict writer, tolerant reader: an event is appended only if it matches the current schemas exactly, while a
 * stored event is read with the fields this version does not know dropped, so that an additive change made by a
 * newer writer (a new optional field in data or metadata) does not stop an older reader. A `schema_version` above
 * this version's is read the same way: it decodes when its data still has the current shape (a writer changes the
 * meaning of a field only under a new event type). What still does not decode is answered as a problem, not thrown:
 * each reader decides what an unreadable event means to it.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { eventSchemas, isEventType, type DomainEvent, type EventType } from './index.ts';
import { EventMetadata } from './metadata.ts';
import { OWN_SCHEMAS } from '../schema/own-schemas.ts';

/** The schema version every event is written with today. */
export const CURRENT_SCHEMA_VERSION = 1;

export class InvalidEventError extends Error {
  constructor(readonly eventType: string, readonly problems: string) {
    super(`invalid ${eventType} event: ${problems}`);
    this.name = 'InvalidEventError';
  }
}

/** Takes the data of an event written with `schema_version` n and returns its data of version n + 1. */
export type Upcaster = (data: unknown) => unknown;
/** Upcasters by event type, each under the version it upcasts from. */
type Upcasters = Partial<Record<EventType, Record<number, Upcaster>>>;

/** This version's upcasters. None exist yet; when a schema changes, its old shape is converted here and nowhere else. */
const upcasters: Upcasters = {};

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * The event schemas compiled by one Ajv instance. Compiled on first use: compiling every schema costs a few hundred
 * milliseconds that a CLI call or a process start would otherwise pay before doing anything.
 */
class EventValidators {
  readonly #ajv: Ajv;
  readonly #data = new Map<string, ValidateFunction>();
  #metadata: ValidateFunction | undefined;

  readonly #writerBounds: boolean;

  constructor({ writerBounds, ...options }: { removeAdditional: boolean; writerBounds: boolean }) {
    this.#ajv = addFormats(new Ajv({ ...OWN_SCHEMAS, allErrors: true, strict: false, ...options }));
    this.#writerBounds = writerBounds;
  }

  data(type: EventType): ValidateFunction {
    let validate = this.#data.get(type);
    if (!validate) {
      const schema = eventSchemas[type] as object;
      this.#data.set(type, (validate = this.#ajv.compile(this.#writerBounds ? schema : withoutWriterBounds(schema) as object)));
    }
    return validate;
  }

  metadata(): ValidateFunction {
    return (this.#metadata ??= this.#ajv.compile(EventMetadata as object));
  }

  problemsOf(validate: ValidateFunction, dataVar: 'data' | 'metadata'): string {
    return this.#ajv.errorsText(validate.errors, { separator: '; ', dataVar });
  }
}

/**
 * Keywords that bind writers only: bounds added once events were already written (the specifications' number and
 * names of keys, watch.events.ts), which an event an older version wrote may exceed and must still be read.
 */
const WRITER_ONLY_KEYWORDS = new Set(['maxProperties', 'propertyNames']);

/** A copy of `schema` without the writer-only keywords; the names of properties are kept whatever they are. */
export function withoutWriterBounds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutWriterBounds);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(Object.entries(schema).filter(([keyword]) => !WRITER_ONLY_KEYWORDS.has(keyword)).map(([keyword, value]) => [
    keyword,
    keyword === 'properties' || keyword === 'patternProperties'
      ? Object.fromEntries(Object.entries(value as object).map(([name, child]) => [name, withoutWriterBounds(child)]))
      : withoutWriterBounds(value),
  ]));
}

const writing = new EventValidators({ removeAdditional: false, writerBounds: true });
// Every event schema closes its objects (`additionalProperties: false`) and none has a union of objects, so
// ajv's removal drops exactly the fields the schemas do not name, and nothing a later branch would need.
const reading = new EventValidators({ removeAdditional: true, writerBounds: false });

/** Throws `InvalidEventError` unless `type`, `data` and `metadata` match the current schemas exactly. */
export function assertValidEvent(type: string, data: unknown, metadata: unknown): asserts data is DomainEvent['data'] {
  if (!isEventType(type)) throw new InvalidEventError(type, 'unknown event type');
  const validate = writing.data(type);
  if (!validate(data)) throw new InvalidEventError(type, writing.problemsOf(validate, 'data'));
  const validateMetadata = writing.metadata();
  if (!validateMetadata(metadata)) throw new InvalidEventError(type, writing.problemsOf(validateMetadata, 'metadata'));
}

/** A stored event read in the current shape, or what keeps this version from reading it. */
type DecodedEvent =
  | { data: DomainEvent['data']; metadata: EventMetadata }
  | { problem: string; metadata: EventMetadata | null };

/**
 * The tolerant reader of events written up to schema version `currentVersion`, the older ones upcast by `byType`.
 * `decodeStoredEvent` below is this version's; a reader of a later version is built only by
 * test/unit/events/codec.test.ts, to prove the upcasting no event of this version needs yet.
 */
export function eventReader({ currentVersion, byType }: { currentVersion: number; byType: Upcasters }) {
  /** Brings data written with schema version `from` up to the current one; data of a later version is left as it is. */
  function upcast(type: EventType, data: unknown, from: number): unknown {
    let version = from;
    let current = data;
    const steps = byType[type];
    while (version < currentVersion) {
      const step = steps?.[version];
      if (!step) throw new Error(`no upcaster from schema_version ${version}`);
      current = step(current);
      version += 1;
    }
    return current;
  }

  /**
   * Reads a stored event tolerantly: upcast from an older `schema_version`, the fields the current schemas do not
   * name removed (in place: `data` and `metadata` are the caller's own freshly parsed copies), then checked. Never
   * throws. `undefined` stands for a stored text that is not JSON. `metadata` is kept on a problem whenever it
   * decodes, so that a reader can still say when and why the unreadable event was written; it is the metadata as
   * written, its `schema_version` too, whatever the data was upcast to.
   */
  return function decodeStoredEvent(type: string, data: unknown, metadata: unknown): DecodedEvent {
    if (metadata === undefined) return { problem: 'metadata is not JSON', metadata: null };
    const validateMetadata = reading.metadata();
    if (!validateMetadata(metadata)) return { problem: reading.problemsOf(validateMetadata, 'metadata'), metadata: null };
    const decoded = metadata as EventMetadata;
    if (!isEventType(type)) return { problem: 'unknown event type', metadata: decoded };
    if (data === undefined) return { problem: 'data is not JSON', metadata: decoded };
    let current: unknown;
    try {
      current = upcast(type, data, decoded.schema_version);
    } catch (error) {
      return { problem: error instanceof Error ? error.message : String(error), metadata: decoded };
    }
    const validate = reading.data(type);
    if (!validate(current)) return { problem: reading.problemsOf(validate, 'data'), metadata: decoded };
    return { data: current as DomainEvent['data'], metadata: decoded };
  };
}

/** Reads a stored event as this version does (`eventReader`). */
export const decodeStoredEvent = eventReader({ currentVersion: CURRENT_SCHEMA_VERSION, byType: upcasters });
