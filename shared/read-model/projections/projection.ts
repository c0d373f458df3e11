/**
 * What a projection is: a pure function from (the documents an event touches, the event with its position) to
 * the changes it makes to one read collection. The runner and the rebuild load the touched documents, apply
 * events in order in memory and write the result; a projection itself knows nothing of stores or queues.
 *
 * A projection declares the event types it handles once, each with its handler (`projectionOf`); what the batch
 * asks of it (the types it handles, the documents an event touches, the changes it makes) is derived from that.
 */
import type { DomainEvent, EventOf, EventType, Language } from '../../events/index.ts';
import { LANGUAGES } from '../../events/index.ts';
import type { UnreadableEvent } from '../../ports/event-store.ts';
import type { ControlDoc, Filter, GenerationStore, ProjectedCollection, StoredDoc } from '../../ports/read-store.ts';

/** An event as projections see it: its data and its global position (a `RecordedEvent` is one). */
export type PositionedEvent = DomainEvent & { position: number };

/** A positioned event of one type. */
type PositionedEventOf<T extends EventType> = EventOf<T> & { position: number };

/** What a batch is handed: events, and in their place the stored events this version cannot read. */
export type PositionedRecord = PositionedEvent | UnreadableEvent;

/**
 * The documents an event needs: by id, and for an event that reaches documents by one of their properties (a
 * collection rename touches all its watches) a MongoDB filter. The runner evaluates the filter both against the
 * store and, with the in-memory store's compiler (`shared/read-model/query/`, mingo its reference), against the documents
 * already changed in memory, so both agree on what matches.
 */
export interface Touches {
  ids: readonly string[];
  filter?: Filter;
}

/** A change to one document: the whole new document, or its removal. */
export type DocChange<D extends StoredDoc> = { put: D } | { delete: string };

export interface Projection<D extends StoredDoc = StoredDoc> {
  /** Also the `_id` of its checkpoint document. */
  readonly name: string;
  readonly collection: ProjectedCollection;
  /** Event types it applies; the others only move its checkpoint. */
  readonly handles: ReadonlySet<EventType>;
  /**
   * Handed every stored event, whatever `handles` says, an unreadable one as it is (cast: `apply` then takes a
   * `PositionedRecord`): the transparency log, whose leaves are every event of the history.
   */
  readonly everyRecord?: boolean;
  /**
   * How long after an append's signal a worker holding its lease runs it; default at once. The transparency log,
   * which no answer waits for, runs after the read models' writes instead of beside them (issue 29).
   */
  readonly afterSignalMs?: number;
  /**
   * The order of a batch's writes, ascending by rank (stable): for a projection whose documents are derived from
   * one another (the log's full tiles from its partial ones), so that a crash in the middle of a bulk never leaves
   * a document recording an event whose derived documents are not stored yet. Unranked: the order of first change.
   */
  writeRank?(id: string): number;
  /**
   * Asked by a rebuild once its generation is at the head, before it switches readers to it: why that generation
   * must not go live (the transparency log's tiles giving another root than a checkpoint signed before), or
   * undefined. A reason stops the rebuild before its switch; the live projection runs on as it was.
   */
  checkBeforeSwitch?(generation: GenerationStore, control: ReadonlyMap<string, ControlDoc>): Promise<string | undefined>;
  /**
   * Handed each event of a type this version does not know (a newer writer's, which every other projection skips):
   * the serials read model marks the serial whose stream holds one, which it cannot vouch for any more.
   */
  readonly unknownTypes?: UnknownTypeHandler<D>;
  touches(event: PositionedEvent): Touches;
  /**
   * `docs` holds the touched documents that exist (by id), as they stand before this event. Must not mutate
   * them: returns new documents carrying `position: event.position`.
   */
  apply(event: PositionedEvent, docs: ReadonlyMap<string, D>): DocChange<D>[];
}

/** What a projection does with an event of a type this version does not know: as `Projection.touches` and `apply`. */
export interface UnknownTypeHandler<D extends StoredDoc> {
  touches(record: UnreadableEvent): Touches;
  apply(record: UnreadableEvent, docs: ReadonlyMap<string, D>): DocChange<D>[];
}

/** What a projection does with the events of one type: the documents such an event touches, and its changes to them. */
interface EventHandler<T extends EventType, D extends StoredDoc> {
  touches(event: PositionedEventOf<T>): Touches;
  /** As `Projection.apply`: pure, `docs` not mutated. */
  apply(event: PositionedEventOf<T>, docs: ReadonlyMap<string, D>): DocChange<D>[];
}

/** The event types a projection handles, each with its handler: the one place it names them. */
type EventHandlers<D extends StoredDoc> = { readonly [T in EventType]?: EventHandler<T, D> };

/** A projection as declared: a `Projection` whose `handles`, `touches` and `apply` come from its handlers (`on`). */
type ProjectionDeclaration<D extends StoredDoc> = Omit<Projection<D>, 'handles' | 'touches' | 'apply'> & { on: EventHandlers<D> };

/**
 * The projection a declaration describes: it handles the types of `on`, and an event of another type touches
 * nothing and changes nothing (the batch skips those before asking; ARCHITECTURE.md, "Projections").
 */
export function projectionOf<D extends StoredDoc>({ on, ...declaration }: ProjectionDeclaration<D>): Projection<D> {
  // Each handler takes the events of its own type, which is the type it is filed under.
  const handlers = new Map(Object.entries(on) as [EventType, EventHandler<EventType, D> | undefined][]);
  const handlerOf = (event: PositionedEvent) => handlers.get(event.type);
  return {
    ...declaration,
    handles: new Set(handlers.keys()),
    touches: (event) => handlerOf(event)?.touches(event) ?? { ids: [] },
    apply: (event, docs) => handlerOf(event)?.apply(event, docs) ?? [],
  };
}

/** `_id` of a per-language document: `${lang}:${key}`. */
export const langId = (lang: Language, key: string): string => `${lang}:${key}`;

/** The per-language ids of one key, in LANGUAGES order. */
export const langIds = (key: string): string[] => LANGUAGES.map((lang) => langId(lang, key));

/** Looks up a touched document the projection relies on; a missing one means a history it cannot explain. */
export function required<D extends StoredDoc>(docs: ReadonlyMap<string, D>, id: string, event: PositionedEvent): D {
  const doc = docs.get(id);
  if (!doc) throw new Error(`${event.type} at position ${event.position} needs document ${id}, which does not exist`);
  return doc;
}
