/**
 * The state of the public API at a point in the past: the history up to that point projected by the projector's
 * own `rebuild` into a scratch in-memory read store, then asked what the API would have answered.
 */
import { InvalidArgumentError } from 'commander';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import type { Config } from '../../shared/config/config.ts';
import type { Language } from '../../shared/events/common.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { rebuild, type RebuildProgress } from '../../shared/read-model/projections/rebuild.ts';
import { READ_MODEL_PROJECTIONS } from '../../shared/read-model/projections/index.ts';
import type { OperationEnv } from '../../shared/read-model/public-api/operations/public-operation.ts';
import { historyCut, type Cut } from './history-cut.ts';
import { parseMoment } from './moments.ts';
import { AuditError } from './audit-sources.ts';
import { catalogueAnswers, collectionsAnswer, frozenEnv, optionsAnswers, serialAnswer, serialAnswers, watchAnswer } from './public-answers.ts';

export const STATE_SECTIONS = ['catalogue', 'collections', 'options', 'serials'] as const;
export type StateSection = (typeof STATE_SECTIONS)[number];

/** Where a projected state stands: the cut asked for, the last event it includes and the moment it answers for. */
interface AsOf {
  /** The moment the answers are given for: the timestamp asked, or when the last included event occurred. */
  at: string;
  /** Position of the last event included (0 when none). */
  position: number;
  events: number;
}

/** `TIMESTAMP` (ISO 8601) or `POSITION` (digits only). */
export function parseCut(value: string): Cut {
  const text = value.trim();
  if (/^\d+$/.test(text)) return { position: Number(text) };
  try {
    return { at: parseMoment(text) };
  } catch {
    throw new InvalidArgumentError('expected an ISO 8601 timestamp (2025-03-01T12:00:00Z) or a position (digits)');
  }
}

export interface ProjectedState {
  readStore: ReadStore;
  asOf: AsOf;
}

/** Projects the history up to `cut` into a fresh in-memory store; close the store when done. */
export async function projectAt(eventStore: EventStore, cut: Cut, onProgress?: (progress: RebuildProgress) => void): Promise<ProjectedState> {
  const view = historyCut(eventStore, cut);
  const readStore = createMemoryReadStore();
  // The read models the public operations answer from; the transparency log's tiles are not among them.
  const result = await rebuild({ eventStore: view, readStore, projections: READ_MODEL_PROJECTIONS, ...(onProgress ? { onProgress } : {}) });
  const last = view.lastIncluded();
  const at = 'at' in cut ? new Date(cut.at).toISOString() : (last?.occurredAt ?? new Date(0).toISOString());
  return { readStore, asOf: { at, position: result.position, events: result.events } };
}

export function envAt(state: ProjectedState, config: Config): OperationEnv {
  return frozenEnv(state.readStore, config, state.asOf.position, new Date(state.asOf.at));
}

/**
 * A cut the history can answer for: a position up to its head, a moment not after now. Clamping either would
 * print a state that never was asked for under the label of the one that was.
 */
export async function checkCut(cut: Cut, eventStore: EventStore, now: number = Date.now()): Promise<void> {
  if ('position' in cut) {
    const head = await eventStore.headPosition();
    if (cut.position > head) throw new AuditError(`position ${cut.position} is beyond the history, whose last position is ${head}`);
  } else if (cut.at > now) {
    throw new AuditError(`${new Date(cut.at).toISOString()} is in the future (now ${new Date(now).toISOString()}): the history cannot say what will be`);
  }
}

/** One watch or one serial instead of the whole section. */
interface StateFilters {
  reference?: string;
  serial?: string;
}

/** The public answers of the sections asked, keyed by section, with `as_of` first. */
export async function stateAnswers(
  state: ProjectedState, config: Config, lang: Language, sections: readonly StateSection[], filters: StateFilters = {},
): Promise<Record<string, unknown>> {
  const env = envAt(state, config);
  const answers: Record<string, unknown> = { as_of: state.asOf, lang };
  for (const section of sections) {
    switch (section) {
      case 'catalogue':
        answers[section] = filters.reference === undefined ? await catalogueAnswers(env, lang) : await watchAnswer(env, lang, filters.reference);
        break;
      case 'collections': answers[section] = await collectionsAnswer(env, lang); break;
      case 'options': answers[section] = await optionsAnswers(env, lang); break;
      case 'serials':
        answers[section] = filters.serial === undefined ? await serialAnswers(env, lang) : await serialAnswer(env, lang, filters.serial);
        break;
      default: throw new Error(`unknown section ${String(section satisfies never)}`);
    }
  }
  return answers;
}
