/**
 * The event catalogue: every event type, its schema and its data type. `DomainEvent` is the discriminated union
 * that deciders, projections and auditors switch over.
 */
import type Type from 'typebox';
import { collectionEventSchemas } from './collection.events.ts';
import { configuratorEventSchemas } from './configurator.events.ts';
import { serialEventSchemas } from './serial.events.ts';
import { watchEventSchemas } from './watch.events.ts';

export const eventSchemas = {
  ...collectionEventSchemas,
  ...watchEventSchemas,
  ...configuratorEventSchemas,
  ...serialEventSchemas,
} as const;

export type EventType = keyof typeof eventSchemas;
export const EVENT_TYPES = Object.keys(eventSchemas) as EventType[];

const KNOWN_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);

/** Whether this version knows `type`: a stored event of another type is a newer writer's. */
export function isEventType(type: string): type is EventType {
  return KNOWN_TYPES.has(type);
}

/** `{ type, data }` for one event type. */
export type EventOf<T extends EventType> = { type: T; data: Type.Static<(typeof eventSchemas)[T]> };
/** Every domain event, discriminated by `type`. */
export type DomainEvent = { [T in EventType]: EventOf<T> }[EventType];

/** For the `default` branch of a switch over event types: the compiler names any forgotten case. */
export function assertNever(value: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(value)}`);
}

export * from './common.ts';
export * from './metadata.ts';
export * from './collection.events.ts';
export * from './watch.events.ts';
export * from './configurator.events.ts';
export * from './serial.events.ts';
