/**
 * Signs the transparency log's checkpoints. The log is a projection (shared/read-model/projections/transparency-log.projection.ts)
 * that the projector keeps in the read store; every API process holding the log key reads it a few times a second
 * and, when it grew, signs a checkpoint of its new size and stores it (a control document, compare-and-set on the
 * size: shared/read-model/transparency/signed-checkpoints.ts), so an appended event is covered by a published checkpoint within
 * a second of its projection, and every process serves the same latest one.
 *
 * It signs only what extends the checkpoint signed last (kept in the store, and by `record` across starts) and only
 * the tree that the live generation's checkpoint covers. A tree that does not extend it (a store filled again from
 * a shorter or edited history, a rebuild over one) is refused: logged as an error (the alert), counted
 * (`transparency_log_refused_trees_total`), never signed, and the log's routes refuse while it holds. The
 * projection is never parked for it: the signer changes no projection state, so an operator's resume stands.
 * A tree short of it is a shorter history only once its owner is seen confirming the head (seen-confirmations.ts):
 * a read store put back from a copy holds the copy's old confirmation while its projector applies the events again.
 *
 * Each checkpoint commits the serial index after exactly the events it counts, in its extension line
 * (serial-index.ts, `indexExtension`): the publisher keeps the index (checkpoint-index.ts) at the latest signed
 * checkpoint, advanced before it signs the next, or to the one another process signed (whose line it checks), and
 * answers a serial's status with the proofs of it at that checkpoint (`indexAnswer`). Only while the read store holds
 * the index's changes from the log's first leaf (`TileLog.indexFromStart`): a log projected in part before they
 * existed, or holding a serial's event its projector could not read, would give an index lacking serials or a theft,
 * so its checkpoints are signed without the line, no proof is answered, and a warning names the remedy, until the
 * log's rebuild writes them all.
 *
 * The process also keeps the newest checkpoint it signed or served, checked first (below), in memory and in `record`
 * (checkpoint-file.ts, in DATA_DIR: outside the read store, which a restore can take back, or which the embedded mode
 * starts empty): a kept checkpoint newer than the store's is put back, at start and whenever a look finds the store's
 * older, so the check holds across restarts and restores. None kept (a fresh machine): the store's first checkpoint
 * that the tiles give is trusted and kept. What it signs extends the kept checkpoint by a consistency proof from the
 * tiles, and is kept before it is stored; one stored by another process is kept once a proof shows it extends it, and
 * refused as a rewritten past otherwise (docs/api.md, "Stores put back from a copy"). The witnesses' cosignatures the
 * store's note of the kept checkpoint gathers are kept with it, so a put-back serves them too, and only those that
 * verify (a note from the store or the record keeps no other line but the log's); a put-back also has the witnesses
 * it lacks asked at once (witness-cosigning.ts).
 */
import type { KeyObject } from 'node:crypto';
import type { Logger } from '../../shared/logging/logger.ts';
import type { ReadSnapshot, ReadStore } from '../../shared/ports/read-store.ts';
import { liveCheckpointOf } from '../../shared/read-model/projections/control-docs.ts';
import type { Projection } from '../../shared/read-model/projections/projection.ts';
import { transparencyLogProjection } from '../../shared/read-model/projections/transparency-log.projection.ts';
import { checkpointBody, parseCheckpoint } from '../../shared/read-model/transparency/checkpoint.ts';
import type { Hash } from '../../shared/read-model/transparency/merkle.ts';
import { noteText, signNote, verifierKey } from '../../shared/read-model/transparency/signed-note.ts';
import { exchangedCosignatures, withCheckedCosignatures } from '../../shared/read-model/transparency/cosignature.ts';
import {
  signedCheckpointDoc, signedCheckpointOf, storeSignedCheckpoint, type SignedCheckpointDoc,
} from '../../shared/read-model/transparency/signed-checkpoints.ts';
import { TileLog } from '../../shared/read-model/transparency/tile-log.ts';
import { publicJwk, type Ed25519PublicJwk } from '../../shared/signing/jwk-set.ts';
import { logKeyHistory } from './log-key.ts';
import { divergence, extendsCheckpoint } from '../../shared/read-model/transparency/log-divergence.ts';
import { startWitnessCosigning, type WitnessCosigningOptions } from './witness-cosigning.ts';
import { indexCommitmentOf, indexExtension, type IndexAnswer, type VrfMemo } from '../../shared/read-model/transparency/serial-index.ts';
import { CheckpointIndex, INDEX_NOT_BUILT, indexVrfKey } from './checkpoint-index.ts';
import { lastLeafPositions } from './leaf-positions.ts';
import { SeenConfirmations } from './seen-confirmations.ts';
import type { IndexProved } from '../../shared/read-model/public-api/operations/public-operation.ts';

const projection = transparencyLogProjection as unknown as Projection;

export interface PublishedCheckpoint {
  size: number;
  root: Hash;
  /** The signed note, as served. */
  note: string;
}

/** The log as one snapshot of the read store holds it: its tiles, the latest signed checkpoint, and whether it is parked. */
export interface LogView {
  log: TileLog;
  checkpoint: PublishedCheckpoint | undefined;
  /**
   * Why the log is not served: its projection is parked, or (as the publisher's last look found) its tiles do not
   * extend the checkpoint signed last; undefined while it runs.
   */
  parked: string | undefined;
}

export interface TransparencyLog {
  /** `<name>+<key id>+<key>`, as Go's note.NewVerifier reads it. */
  verifierKey: string;
  /** The log key's history as `/.well-known/transparency/keys` serves it (log-key.ts). */
  keyHistory: string;
  /** The log as the read store holds it now (one snapshot): what a request is answered from. */
  read(): Promise<LogView>;
  /** The latest signed checkpoint this process knows of (its last look), undefined before the first. */
  checkpoint(): PublishedCheckpoint | undefined;
  /** Why the log is parked, or refused (see `LogView.parked`), as this process last saw; undefined while it runs. */
  parked(): string | undefined;
  /** How many trees this process refused to sign since it started: they did not extend the checkpoint signed last. */
  refusals(): number;
  /**
   * A serial's status in the serial index with the proofs of it, at the latest signed checkpoint this process knows
   * whose index it holds, and that checkpoint (as served: with the cosignatures gathered); undefined before one.
   */
  indexAnswer(serial: string): Promise<{ answer: IndexAnswer; checkpoint: PublishedCheckpoint } | undefined>;
  /**
   * Whether the read store holds the serial index's changes from the log's first leaf, as the last look found: false
   * for a log projected in part before they existed, until its rebuild (no checkpoint then commits the index).
   */
  indexBuilt(): boolean;
  /** Looks at the log again on the projectors' word that it moved, after any look under way (it may have read before). */
  look(): Promise<void>;
  /** Looks no more, and resolves once a look under way has ended (before the store it reads is closed). */
  stop(): Promise<void>;
}

/**
 * A serial's status proved in the serial index as the verify operation takes it (`OperationEnv['serialIndex']`), with
 * the position of the last event its checkpoint counts.
 */
export function indexProofs(log: Pick<TransparencyLog, 'indexAnswer' | 'indexBuilt' | 'read'>): (serial: string) => Promise<IndexProved | 'not built' | undefined> {
  const lastLeafOf = lastLeafPositions(log);
  return async (serial) => {
    const found = await log.indexAnswer(serial);
    if (found) return { answer: found.answer, checkpoint: found.checkpoint.note, through: await lastLeafOf(found.checkpoint.size) };
    return log.indexBuilt() ? undefined : 'not built';
  };
}

/** Where the newest checkpoint signed or served is kept across starts and restores (checkpoint-file.ts). */
export interface SignedCheckpointRecord {
  /** The note of the largest tree kept, or undefined before the first checkpoint. */
  load(): string | undefined;
  /**
   * Keeps `note` unless a tree at least as large is kept, or adds the signature lines it carries when it is a note of
   * the checkpoint kept (the same text): the record never goes back, whoever saves.
   */
  save(note: string): void;
}

export interface LogPublisherOptions {
  readStore: ReadStore;
  record?: SignedCheckpointRecord;
  key: KeyObject;
  /** During a rotation, the outgoing key, which co-signs every checkpoint after `key` (log-key.ts). */
  previousKey?: KeyObject | undefined;
  /** Every key of the log, this one included (log-key.ts); default: this one, from now. */
  history?: readonly Ed25519PublicJwk[];
  origin: string;
  logger: Logger;
  /** How often the log is looked at, in milliseconds (default 200). */
  intervalMs?: number;
  /**
   * How long after the last look the timer looks again, asked at each period; default 0 (every period). Longer
   * while the projectors' word that the log moved is heard (`look()` on it): the timer then only covers a word lost.
   */
  lookAfterMs?: () => number;
  /** Where the serials' VRF evaluations are kept (default: in memory, computed again at each start). */
  vrfMemo?: (vrfPublicKey: Uint8Array) => VrfMemo;
  /** The witnesses each new checkpoint is submitted to, whose cosignatures it is served with (witness-cosigning.ts). */
  witnesses?: Omit<WitnessCosigningOptions, 'readStore' | 'logger'>;
}

/** How long a look computes serials' VRF outputs for the index at most (checkpoint-index.ts). */
export const INDEX_BUDGET_MS = 100;

const published = (doc: SignedCheckpointDoc | undefined): PublishedCheckpoint | undefined =>
  doc && { size: doc.size, root: Buffer.from(doc.root, 'base64'), note: doc.note };

function viewOf(snapshot: ReadSnapshot, log: TileLog): LogView {
  const { checkpoint: state } = liveCheckpointOf(new Map(snapshot.control.map((doc) => [doc._id, doc])), projection);
  return {
    log,
    checkpoint: published(signedCheckpointOf(snapshot.control)),
    parked: state?.status === 'parked' ? state.parked?.reason ?? 'parked' : undefined,
  };
}

export async function readLogView(readStore: ReadStore): Promise<LogView> {
  const snapshot = await readStore.snapshot();
  return viewOf(snapshot, await TileLog.read(snapshot));
}

export async function startTransparencyLog(options: LogPublisherOptions): Promise<TransparencyLog> {
  const { readStore, record, key, previousKey, history, origin, logger, intervalMs = 200, lookAfterMs, witnesses, vrfMemo } = options;
  const vrf = indexVrfKey(key);
  const index = new CheckpointIndex(vrf, vrfMemo?.(vrf.publicKey));
  /** The signed checkpoint the index stands at (its size and root checked), undefined while it moves or matches none. */
  let indexed: PublishedCheckpoint | undefined;
  /** The size of the signed checkpoint whose index line was last judged against the index. */
  let judged: number | undefined;
  const cosigning = witnesses && witnesses.witnesses.length > 0 ? startWitnessCosigning({ ...witnesses, readStore, logger }) : undefined;
  const keyHistory = logKeyHistory(origin, history ?? [{ ...(await publicJwk(key)), nbf: Math.floor(Date.now() / 1000) }]);
  let last: LogView | undefined;
  /** The tree last looked at (live generation, size covered, checkpoint signed, short of it whether seen at the head), refused or not. */
  let looked: { tree: string; refused: string | undefined } | undefined;
  let refusals = 0;
  /** Whether the store holds the index's changes from the log's first leaf, as the last look found. */
  let built = true;
  const confirmations = new SeenConfirmations();

  const witnessKeys = witnesses?.witnesses.map((witness) => witness.verifier) ?? [];
  /** A note of another's (the store's, a record an earlier version kept), as kept: no line it cannot check. */
  const checked = (note: string) => signedCheckpointDoc(withCheckedCosignatures(note, origin, witnessKeys));
  const recorded = record?.load();
  /** The newest checkpoint this process signed or served, as `record` keeps it. */
  let kept = recorded === undefined ? undefined : checked(recorded);
  const keep = (doc: SignedCheckpointDoc) => {
    record?.save(doc.note);
    kept = doc;
  };
  /**
   * The witnesses' cosignatures of the kept checkpoint, checked, exchanged with the store's note of it: those it
   * gathered are kept, those kept are given back to a note that lacks them (a copy taken before they came), so that
   * a restore serves the checkpoint as cosigned as it was; whether the store's note changed.
   */
  async function exchangeCosignatures(stored: SignedCheckpointDoc | undefined): Promise<boolean> {
    if (!kept || !stored || stored.size !== kept.size || stored.note === kept.note) return false;
    const notes = exchangedCosignatures(kept.note, stored.note, witnessKeys);
    if (notes.kept !== kept.note) keep({ ...kept, note: notes.kept });
    return notes.stored !== stored.note
      && readStore.setControl({ ...stored, note: notes.stored }, { size: stored.size, root: stored.root, note: stored.note }, false);
  }
  /**
   * Puts the kept checkpoint back over an older one in the store (a restore's), and has the witnesses its note lacks
   * asked at once rather than at the next round; whether the store held an older one.
   */
  async function putBack(stored: SignedCheckpointDoc | undefined): Promise<boolean> {
    if (!kept || (stored && stored.size >= kept.size)) return false;
    for (let held = stored; !(held && held.size >= kept.size);) {
      if (await storeSignedCheckpoint(readStore, kept, held)) break;
      held = signedCheckpointOf(await readStore.readControl());
    }
    confirmations.putBack();
    cosigning?.submit();
    return true;
  }
  await putBack(signedCheckpointOf(await readStore.readControl()));

  /** A tree refused: logged as the alert, counted, and served no further until a look finds the history restored. */
  function refuse(view: LogView, tree: string, reason: string, size: number, signed: number | undefined): void {
    looked = { tree, refused: reason };
    // Never signed; the projection is left running, so that nothing a signer does can undo an operator's
    // `watchcat projections resume`.
    refusals += 1;
    logger.error({ alert: 'transparency log refused', size, signed },
      `transparency log: refused to sign a tree of ${size} leaves: ${reason}; it signs and serves nothing until the history is restored`);
    last = { ...view, parked: reason };
  }

  async function look(): Promise<void> {
    let snapshot = await readStore.snapshot();
    const stored = signedCheckpointOf(snapshot.control);
    if ((await exchangeCosignatures(stored)) || (await putBack(stored))) snapshot = await readStore.snapshot();
    const log = await TileLog.read(snapshot);
    const view = viewOf(snapshot, log);
    last = view;
    const control = new Map(snapshot.control.map((doc) => [doc._id, doc]));
    const { generation, checkpoint: state } = liveCheckpointOf(control, projection);
    if (!state || view.parked !== undefined) {
      looked = undefined;
      return;
    }
    const signed = signedCheckpointOf(control);
    // Only what the live owner's checkpoint covers: tiles past it are a bulk not yet checkpointed, or one a stale
    // writer left (its checkpoint refused), which the generation a rebuild switches to may not hold.
    const size = await log.leavesThrough(state.position);
    if (built && !log.indexFromStart) logger.warn({ alert: 'serial index not built' }, INDEX_NOT_BUILT);
    built = log.indexFromStart;
    if (!built) indexed = undefined;
    // Short of what was signed, at the head of the history once its owner confirmed (seen happen) a head it had
    // reached; before that it is catching up (a store filled again, or put back), and nothing is checked or signed.
    const atHead = confirmations.atHead(generation, state);
    const tree = `${generation}:${size}:${signed?.size}:${signed?.root}:${signed !== undefined && size < signed.size && atHead}`;
    if (looked?.tree === tree) {
      if (looked.refused !== undefined) last = { ...view, parked: looked.refused };
      // The index may still be on its way to the checkpoint signed last (behind it at a start, after a bulk).
      else if (signed && built) await indexAt(log, snapshot, published(signed)!);
      return;
    }
    const refused = await divergence(log, signed, atHead, size);
    if (refused) return refuse(view, tree, refused, size, signed?.size);
    if (signed && size >= signed.size && (!kept || signed.size > kept.size)) {
      // Another process's checkpoint (or the store's, on a fresh machine), which the tiles give: kept if it extends
      // the one kept, by a proof from the tiles; otherwise this process's key signed another past than that one.
      if (!(await extendsCheckpoint(log, kept, signed.size, Buffer.from(signed.root, 'base64')))) {
        return refuse(view, tree, `the checkpoint of ${signed.size} leaves stored does not extend the one of ${kept!.size} leaves this process signed or served`, size, signed.size);
      }
      keep(checked(signed.note));
    }
    looked = { tree, refused: undefined };
    if (signed && size <= signed.size) {
      if (built) await indexAt(log, snapshot, published(signed)!);
      return;
    }
    indexed = undefined;
    // Every checkpoint commits the index after exactly its events: behind (a bulk of new serials, a start), the index
    // stops short within its budget and the checkpoint covers what it reached, the next look going on. Not built,
    // the index would lack serials: the log alone is signed.
    const reached = built ? await advanceIndex(log, snapshot, size) : size;
    if (reached < size) looked = undefined;
    if ((signed && reached <= signed.size) || (kept && reached <= kept.size)) return;
    const root = await log.root(reached);
    if (!(await extendsCheckpoint(log, kept, reached, root))) {
      return refuse(view, tree, `the tree of ${reached} leaves does not extend the checkpoint of ${kept!.size} leaves this process signed or served`, reached, kept?.size);
    }
    const extensions = built ? [indexExtension({ root: index.root(), vrfPublicKey: vrf.publicKey })] : [];
    // The same keys in the same order give the same bytes in every process, so whichever stores first, a size has one note.
    const note = signNote(checkpointBody({ origin, size: reached, root, extensions }), origin, key, ...(previousKey ? [previousKey] : []));
    const doc = signedCheckpointDoc(note);
    // Kept before it is published: a restore after it finds it whatever happens next. Another process may have
    // signed meanwhile: the next look reads what it stored (and puts this one back over a smaller one).
    keep(doc);
    if (await storeSignedCheckpoint(readStore, doc, signed)) {
      last = { ...view, checkpoint: published(doc) };
      if (built) indexed = published(doc);
      judged = reached;
      cosigning?.submit();
    }
  }

  /** Advances the index towards the tree of `size` leaves within its budget; the size it reached. */
  async function advanceIndex(log: TileLog, snapshot: ReadSnapshot, size: number): Promise<number> {
    return index.advance(
      snapshot, size, (await log.positionOf(size - 1)) ?? -1, starting ? Infinity : INDEX_BUDGET_MS,
      (position) => log.leavesThrough(position), (from, to) => log.leafPositionsBetween(from, to),
    );
  }

  /**
   * The index at `signed` (another process's, or one kept from before a start): advanced to its size when the tiles
   * hold it, and taken as its index when its line commits that very root; otherwise no answer is proved from it.
   */
  async function indexAt(log: TileLog, snapshot: ReadSnapshot, signed: PublishedCheckpoint): Promise<void> {
    if (judged === signed.size || signed.size > log.size || signed.size < index.size) return;
    indexed = undefined;
    if (await advanceIndex(log, snapshot, signed.size) < signed.size) return;
    const committed = indexCommitmentOf(parseCheckpoint(noteText(signed.note)));
    judged = signed.size;
    // Under another VRF key (signed before the log key rotated), the index's keys are others: nothing to compare.
    if (committed === undefined || !Buffer.from(committed.vrfPublicKey).equals(vrf.publicKey)) return;
    if (index.root().equals(committed.root)) indexed = signed;
    else logger.error({ alert: 'serial index differs', size: signed.size }, `serial index: the checkpoint of ${signed.size} leaves commits another index than the one this process builds from the log`);
  }

  let running: Promise<void> | undefined;
  let lookedAt = -Infinity;
  // Set by stop(): a look asked after it (a word heard, a proof asked while the server drains, a `look()` that was
  // waiting for the look under way) starts nothing, so none reads the store once it is closed.
  let stopped = false;
  const tick = () => {
    if (stopped) return Promise.resolve();
    lookedAt = performance.now();
    running ??= look()
      .catch((error: unknown) => {
        // Looked at in full again next time, not taken as a tree already dealt with.
        looked = undefined;
        logger.warn({ err: error }, 'transparency log: could not look at the log or sign a checkpoint');
      })
      .finally(() => { running = undefined; });
    return running;
  };
  // The first look builds the index whole before the process serves: a start then serves a checkpoint of the log
  // as the store holds it, as it did before the index, at the cost of the serials' VRF outputs not kept yet.
  let starting = true;
  await tick();
  starting = false;
  const timer = setInterval(() => {
    if (performance.now() - lookedAt >= (lookAfterMs?.() ?? 0)) void tick();
  }, intervalMs);
  timer.unref();
  return {
    verifierKey: verifierKey(origin, key),
    keyHistory,
    read: async () => {
      const view = await readLogView(readStore);
      // A tree refused at the last look is served no further, until a look finds the history restored.
      return looked?.refused !== undefined && view.parked === undefined ? { ...view, parked: looked.refused } : view;
    },
    checkpoint: () => last?.checkpoint,
    // As `read`: a look under way sets `last` before it judges the tree, which stays refused until it does.
    parked: () => last?.parked ?? looked?.refused,
    refusals: () => refusals,
    indexBuilt: () => built,
    indexAnswer: async (serial) => {
      // The index moves only inside a look: read between two, with the checkpoint it stands at, in one step.
      for (let attempt = 0; attempt < 3 && built; attempt += 1) {
        if (indexed) {
          const served = last?.checkpoint?.size === indexed.size ? last.checkpoint : indexed;
          return { answer: index.answer(serial), checkpoint: served };
        }
        await (running ?? tick());
      }
      return undefined;
    },
    look: async () => {
      await running;
      await tick();
    },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
      await cosigning?.stop();
    },
  };
}
