/**
 * An operation module's runtime half: its spec (operation.ts) and a handler that turns a validated request into
 * an answer. Handlers know nothing of Koa: the router (routes.ts) validates, caches, serializes and sets headers.
 */
import type { IndexAnswer } from '../../transparency/serial-index.ts';
import type { Config } from '../../../config/config.ts';
import type { ReadView } from '../../../ports/read-store.ts';
import type { ReadCollection } from '../../documents/documents.ts';
import type { ReadModelPosition } from '../read-model-clock.ts';
import type { ValidRequest } from '../validation/request-validator.ts';
import type { PublicOperationSpec } from './operation.ts';

export type HealthStatus = 'ok' | 'degraded';
/** Says whether the service is fully healthy (read store reachable, projections running). */
export type HealthProbe = () => HealthStatus | Promise<HealthStatus>;

/** The brand as the status operation shows it. */
export interface PublicBrand {
  name: string;
  tagline: { en: string; fr: string };
  country: string;
  founded: number;
  website: string;
}

export interface OperationEnv {
  /** The reads of this request, all in one generation (../answer-policy.ts). */
  readStore: ReadView;
  clock: ReadModelPosition;
  /**
   * The time the answer says (the verification's `checked_at`), as the answer policy gives it (../answer-policy.ts);
   * an audit gives the moment it answers for. No operation reads a clock of its own.
   */
  now: Date;
  config: Config;
  health: HealthProbe;
  brand: PublicBrand;
  /** Every public operation, for the status endpoint list. */
  operations: readonly PublicOperationSpec[];
  /**
   * A serial's status in the serial index with its proofs, at the latest signed checkpoint whose index this process
   * holds (read-api/transparency/log-publisher.ts, `indexAnswer`); undefined before one, 'not built' while the read
   * store lacks some of the index's changes (a log projected in part before they existed, until its rebuild), or
   * absent where none is kept.
   */
  serialIndex?: (serial: string) => Promise<IndexProved | 'not built' | undefined>;
}

/** A serial's status proved in the serial index, and the signed note of the checkpoint committing it. */
export interface IndexProved {
  answer: IndexAnswer;
  checkpoint: string;
  /**
   * The event store position of the last event the checkpoint counts; undefined where the log's tiles cannot tell
   * (behind the checkpoint, parked). A registry document past it holds what the index does not yet.
   */
  through: number | undefined;
}

export interface Answer {
  status: number;
  body: unknown;
  /** Seconds a refused request (503) should wait before it is tried again. */
  retryAfter?: number;
  /**
   * Given once, never again from a cache: what it says depends also on something that moves while the read models it
   * reads stand still (a serial's proof, at the latest checkpoint whose index this process holds).
   */
  once?: true;
  /**
   * The position of the newest document the answer was made from, where the operation knows it (each serial document
   * holds the position of the last event that changed it). A reading pins the store's control documents and live
   * generations, not the documents' contents: a projector writes a batch's documents before its checkpoint, so what is
   * read may be ahead of the reading's stamp, and the answer's position is then raised to it (../answer-policy.ts).
   */
  dataAt?: number;
}

export interface PublicOperation {
  spec: PublicOperationSpec;
  /**
   * The read collections its answers are made from. Each is written by the projection of the same name, and an
   * answer is cached and tagged by where those projections stand (read-model-clock.ts), never by the others.
   */
  reads: readonly ReadCollection[];
  /**
   * The answer depends only on the validated request and the collections it reads, so it may be cached until
   * one of their projections moves. False for answers carrying the time or the health.
   */
  cacheable: boolean;
  /**
   * Answers only from read models confirmed fresh (docs/api.md, "Honest answers": the verification operation);
   * the others serve a built model however far behind, and status says `degraded`.
   */
  fresh?: true;
  /**
   * The top-level field of a 200 holding the time of the request (ISO 8601), if any: such an answer is given again
   * from the answer cache to the same URL with that time renewed while the read model stays put.
   */
  timeField?: string;
  handle(request: ValidRequest, env: OperationEnv): Promise<Answer>;
}

export const ok = (body: unknown): Answer => ({ status: 200, body });
export const notFound = (detail: string): Answer => ({ status: 404, body: { detail } });
