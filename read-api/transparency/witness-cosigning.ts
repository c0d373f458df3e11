/**
 * Gathers the witnesses' cosignatures of the latest signed checkpoint (docs/audit.md, "Witnesses"): the process that
 * stored a new checkpoint submits it at once to every witness of TRANSPARENCY_WITNESSES (C2SP tlog-witness, through
 * shared/read-model/transparency/witness-client.ts, with consistency proofs from the log's tiles), so does one that
 * put a kept checkpoint back over a restored store's older one (log-publisher.ts), and every process looks again
 * every `retryMs` for a witness whose cosignature the latest checkpoint lacks (one that was down, a process that
 * started). The cosignatures are added to the stored note as signature lines (compare-and-set on the note, so
 * two processes never drop each other's lines, and none lands on a checkpoint replaced meanwhile), and the log's
 * routes serve them from there. Readers that do not know a witness's key ignore its line (Go's note.Open does).
 *
 * Nothing waits on it: signing and serving go on while witnesses answer or not. Its work is bounded: one round at a
 * time (a newer checkpoint signed meanwhile is the one the next round takes), one request to each witness lacking
 * (two after a 409), each with a deadline.
 */
import type { Logger } from '../../shared/logging/logger.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { withCosignatures } from '../../shared/read-model/transparency/cosignature.ts';
import { isBy, parseNote } from '../../shared/read-model/transparency/signed-note.ts';
import { signedCheckpointOf, type SignedCheckpointDoc } from '../../shared/read-model/transparency/signed-checkpoints.ts';
import { TileLog } from '../../shared/read-model/transparency/tile-log.ts';
import { requestCosignature, type WitnessEndpoint } from '../../shared/read-model/transparency/witness-client.ts';

export interface WitnessCosigningOptions {
  readStore: ReadStore;
  witnesses: readonly WitnessEndpoint[];
  logger: Logger;
  /** Each request's deadline, in milliseconds (default 5000). */
  timeoutMs?: number;
  /** How often the latest checkpoint is looked at for a cosignature it lacks, in milliseconds (default 30000). */
  retryMs?: number;
}

export interface WitnessCosigning {
  /** A new checkpoint was stored, or a kept one put back (log-publisher.ts): submit it (after a round under way). */
  submit(): void;
  stop(): Promise<void>;
}

/** How many times a note is merged again when another process changed it between the read and the write. */
const MERGE_TRIES = 5;

export function startWitnessCosigning(options: WitnessCosigningOptions): WitnessCosigning {
  const { readStore, witnesses, logger, timeoutMs = 5_000, retryMs = 30_000 } = options;
  /** The size each witness said it holds (a 409) or cosigned: the old size of the next request to it. */
  const held = new Map<string, number>();

  const proofOf = async (from: number, to: number) => (await (await TileLog.read(await readStore.snapshot())).consistency(from, to)).proof;

  /** Adds `lines` to the stored note of `checkpoint`, unless a newer checkpoint replaced it. */
  async function store(checkpoint: SignedCheckpointDoc, lines: readonly string[]): Promise<void> {
    for (let tries = 0; tries < MERGE_TRIES; tries += 1) {
      const stored = signedCheckpointOf(await readStore.readControl());
      // Replaced meanwhile by a larger tree (whose root differs: two sizes with one root would be a SHA-256 collision).
      if (stored?.root !== checkpoint.root) return;
      const note = withCosignatures(stored.note, lines);
      if (await readStore.setControl({ ...stored, note }, { size: stored.size, root: stored.root, note: stored.note }, false)) return;
    }
  }

  async function round(): Promise<void> {
    const checkpoint = signedCheckpointOf(await readStore.readControl());
    if (!checkpoint) return;
    const { signatures } = parseNote(checkpoint.note);
    const lacking = witnesses.filter((witness) => !signatures.some((signature) => isBy(signature, witness.verifier)));
    // Each cosignature is stored as it comes (one merge at a time), not after the slowest witness's deadline.
    let merges = Promise.resolve();
    await Promise.all(lacking.map(async (witness) => {
      const outcome = await requestCosignature(witness, { note: checkpoint.note, size: checkpoint.size, oldSize: held.get(witness.url) ?? 0, proofOf, timeoutMs });
      if (outcome.cosigned) {
        held.set(witness.url, checkpoint.size);
        merges = merges.then(() => store(checkpoint, [outcome.line]));
        return merges;
      }
      if (outcome.held !== undefined) held.set(witness.url, outcome.held);
      logger.warn({ witness: witness.url, size: checkpoint.size, status: outcome.status, reason: outcome.reason },
        `transparency log: witness ${witness.verifier.name} did not cosign the tree of ${checkpoint.size} leaves: ${outcome.reason}`);
      return undefined;
    }));
  }

  let running: Promise<void> | undefined;
  let asked = false;
  const submit = () => {
    asked = true;
    running ??= (async () => {
      while (asked) {
        asked = false;
        await round().catch((error: unknown) => logger.warn({ err: error }, 'transparency log: could not gather the witnesses\' cosignatures'));
      }
    })().finally(() => {
      running = undefined;
      // Asked again after the loop's last look: not lost.
      if (asked) submit();
    });
  };
  const timer = setInterval(submit, retryMs);
  timer.unref();
  submit();
  return {
    submit,
    stop: async () => {
      clearInterval(timer);
      asked = false;
      await running;
    },
  };
}
