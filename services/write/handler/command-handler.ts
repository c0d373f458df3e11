/**
 * The generic command handler: load the stream's state, decide, stamp the events with ids and metadata, and
 * append at the expected revision. A concurrent writer makes the append fail with `ConcurrencyError`; the command
 * is then decided again against the new state, after a short jittered pause so racing writers spread out.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { CURRENT_SCHEMA_VERSION, InvalidEventError } from '../../../shared/events/codec.ts';
import type { DomainEvent } from '../../../shared/events/index.ts';
import { ConcurrencyError, type EventStore, type NewEvent } from '../../../shared/ports/event-store.ts';
import { invalid, isDomainError } from '../domain/domain-error.ts';
import type { Aggregate } from './aggregate.ts';
import type { StateLoader } from './load-state.ts';

/** Who sends the command and which piece of work it belongs to; copied onto every event it produces. */
interface CommandMetadata {
  actor: string;
  correlation_id: string;
  causation_id: string;
}

interface HandlerOptions {
  clock: () => Date;
  /** Attempts before a `ConcurrencyError` is given up to the caller. */
  maxAttempts?: number;
}

export interface CommandResult {
  /** Global position of the last appended event, or the store's head when the command changed nothing. */
  position: number;
  /** Number of events appended (0 for a command that repeats the current state). */
  appended: number;
}

/** Enough for dozens of writers racing on one stream: each round lets at least one of them through. */
const DEFAULT_MAX_ATTEMPTS = 100;
const MAX_BACKOFF_MS = 40;

/** Full jitter: a random pause up to an exponentially growing, capped ceiling. */
function backoffMs(attempt: number): number {
  return Math.random() * Math.min(MAX_BACKOFF_MS, 2 ** attempt);
}

function stamp(event: DomainEvent, metadata: CommandMetadata, now: Date): NewEvent {
  return { ...event, id: randomUUID(), metadata: { ...metadata, occurred_at: now.toISOString(), schema_version: CURRENT_SCHEMA_VERSION } };
}

/** Runs one command to completion; throws its `DomainError` when it is refused. */
export async function handleCommand<C, S, E extends DomainEvent, Ctx>(
  store: EventStore,
  states: StateLoader,
  aggregate: Aggregate<C, S, E, Ctx>,
  command: C,
  metadata: CommandMetadata,
  options: HandlerOptions,
): Promise<CommandResult> {
  const stream = aggregate.streamOf(command);
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  for (let attempt = 1; ; attempt += 1) {
    const [{ state, expected }, context] = await Promise.all([
      states.load(aggregate.decider, stream),
      aggregate.loadContext(command, states),
    ]);
    const decision = aggregate.decider.decide(command, state, context);
    if (isDomainError(decision)) throw decision;
    if (decision.length === 0) return { position: await store.headPosition(), appended: 0 };
    const now = options.clock();
    const events = decision.map((event) => stamp(event, metadata, now));
    try {
      const result = await store.append(stream, events, expected);
      return { position: result.position, appended: events.length };
    } catch (error) {
      // The store checks every event against its schema before writing any (and this is the only check, so it is
      // not paid twice): data the schema refuses (a malformed reference, say) is the caller's mistake, not a crash.
      // Said in the caller's terms, the field and the rule: the event's name is ours, not theirs.
      if (error instanceof InvalidEventError) throw invalid(`refused: ${error.problems.replaceAll(/\bdata\//g, '')}`);
      if (!(error instanceof ConcurrencyError) || attempt >= maxAttempts) throw error;
      await sleep(backoffMs(attempt));
    }
  }
}
