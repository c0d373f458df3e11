/**
 * The parts of the official client the EventStoreDB adapter uses. Typing the adapter by this slice (and not by the
 * whole class) lets its tests hand it a stand-in shaped by the client's own types.
 */
import type { EventStoreDBClient } from '@eventstore/db-client';

export type EventStoreDbClient = Pick<EventStoreDBClient, 'appendToStream' | 'readStream' | 'readAll' | 'subscribeToAll' | 'dispose'>;
