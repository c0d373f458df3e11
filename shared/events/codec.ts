/**
 * Validation of events on their way into and out of the event store, and the one place where older schema
 * versions are upcast, so deciders and projections only ever see the current shape.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { EVENT_TYPES, eventSchemas, type DomainEvent, type EventType } from './index.ts';
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

/**
 * Upcasters by event type: each takes data written with `schema_version` n and returns data of version n + 1.
 * None exist yet; when a schema changes, its old shape is converted here and nowhere else.
 */
export type Upcaster = (data: unknown) => unknown;
export const upcasters: Partial<Record<EventType, Record<number, Upcaster>>> = {};

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ ...OWN_SCHEMAS, allErrors: true, strict: false }));
const knownTypes: ReadonlySet<string> = new Set(EVENT_TYPES);
// Compiled on first use: compiling every schema costs a few hundred milliseconds that a CLI call or a process
// start would otherwise pay before doing anything.
const dataValidators = new Map<string, ValidateFunction>();
let metadataCompiled: ValidateFunction | undefined;

function dataValidator(type: string): ValidateFunction | undefined {
  if (!isEventType(type)) return undefined;
  let validate = dataValidators.get(type);
  if (!validate) dataValidators.set(type, (validate = ajv.compile(eventSchemas[type] as object)));
  return validate;
}

function metadataValidator(): ValidateFunction {
  return (metadataCompiled ??= ajv.compile(EventMetadata as object));
}

export function isEventType(type: string): type is EventType {
  return knownTypes.has(type);
}

function problemsOf(validate: ValidateFunction): string {
  return ajv.errorsText(validate.errors, { separator: '; ' });
}

/** Throws `InvalidEventError` unless `type`, `data` and `metadata` match the current schemas. */
export function assertValidEvent(type: string, data: unknown, metadata: unknown): asserts data is DomainEvent['data'] {
  const validate = dataValidator(type);
  if (!validate) throw new InvalidEventError(type, 'unknown event type');
  if (!validate(data)) throw new InvalidEventError(type, problemsOf(validate));
  const validateMetadata = metadataValidator();
  if (!validateMetadata(metadata)) throw new InvalidEventError(type, `metadata: ${problemsOf(validateMetadata)}`);
}

/** Brings stored data up to the current schema version, then validates it. */
export function upcast(type: string, data: unknown, metadata: { schema_version: number }): unknown {
  let version = metadata.schema_version;
  let current = data;
  const steps = upcasters[type as EventType];
  while (version < CURRENT_SCHEMA_VERSION) {
    const step = steps?.[version];
    if (!step) throw new InvalidEventError(type, `no upcaster from schema_version ${version}`);
    current = step(current);
    version += 1;
  }
  return current;
}
