/**
 * The serial index (shared/read-model/transparency/serial-index.ts) as the log's signer keeps it: in memory, advanced through the
 * index's changes that the transparency log projection keeps beside its tiles (`SerialIndexChangeDoc`), in log order,
 * up to the last leaf of the tree it is to commit, so that the root a checkpoint of size N carries is the index after
 * exactly its first N events (ARCHITECTURE.md, "The serial index"). Started empty, it reads every change again at
 * each start; the serials' VRF evaluations, which are what costs, are kept by its memo (serial-vrf-file.ts).
 *
 * The VRF key is derived from the log key (`indexVrfKey`): whoever signs the log's checkpoints holds it, and no one else.
 */
import { hkdfSync, type KeyObject } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import type { Filter, ReadView } from '../../shared/ports/read-store.ts';
import type { SerialIndexChangeDoc } from '../../shared/read-model/documents/documents.ts';
import { SerialIndex, type VrfMemo } from '../../shared/read-model/transparency/serial-index.ts';
import { indexChangeId } from '../../shared/read-model/transparency/tile-docs.ts';
import { vrfKey, type VrfKey } from '../../shared/read-model/transparency/vrf.ts';

/** Changes read at once while catching up (a start reads them all). */
const PAGE = 10_000;
/**
 * Up to this many leaves to go, their changes are read by id (the positions their tiles hold), not as a range of
 * `_id`: FerretDB answers a range by decoding the whole collection, every tile and change (issue 44: one read a
 * replica a change kept it busy), and a lookup by `_id` alone from its index. A look after one change has a leaf or
 * two to go; MongoDB answers both reads from the `_id` index.
 */
const FEW_LEAVES = 16;
/** How long VRF outputs are computed before other work of the process (answers) is let through. */
const GIVE_WAY_MS = 10;

/** What the log's signer (log-publisher.ts) logs once the index is found not built, and answered with proofs refused. */
export const INDEX_NOT_BUILT = 'serial index: the transparency log holds serial events without their index changes (projected in '
  + 'part before the index\'s changes existed, or by a version that could not read them), so its checkpoints are signed '
  + 'without the serial index and proof=index answers 503; run `watchcat rebuild --projection transparency-log` (with a '
  + 'version that reads every event) to build it';

/**
 * The index's VRF key, derived from the log key's Ed25519 seed by HKDF-SHA-256 under a label of its own: a VRF
 * secret is then no second secret to provision and keep, and it lives only where checkpoints are signed.
 */
export function indexVrfKey(logKey: KeyObject): VrfKey {
  if (logKey.type !== 'private' || logKey.asymmetricKeyType !== 'ed25519') throw new Error('the log key is not an Ed25519 private key');
  const seed = Buffer.from(logKey.export({ format: 'jwk' }).d!, 'base64url');
  return vrfKey(Buffer.from(hkdfSync('sha256', seed, Buffer.alloc(0), 'watchcat/serial-index/v1 VRF key', 32)));
}

export class CheckpointIndex {
  private readonly index: SerialIndex;
  /** The tree size the index stands at, and the position of that tree's last leaf (-1 for none). */
  private leaves = 0;
  private through = -1;

  constructor(vrf: VrfKey, memo?: VrfMemo) {
    this.index = new SerialIndex(vrf, memo);
  }

  get size(): number {
    return this.leaves;
  }

  root(): Buffer {
    return this.index.root();
  }

  /** The index as `answer` of serial-index.ts gives it, at the size it stands at. */
  answer(serial: string) {
    return this.index.answer(serial);
  }

  /**
   * Applies the changes `view` holds of the events after the index's last one, up to `position`, the position of the
   * last leaf of the tree of `size` leaves, and answers the size of the tree the index then stands at: `size`, or
   * less when the serials' VRF outputs not kept yet took `budgetMs` (computed giving way to other work every few
   * milliseconds), the index then standing just before the first change it did not apply (`leavesThrough` maps a
   * position to the leaves up to it); the next call goes on from there. A tree smaller than the one it stands at is
   * refused: the index only goes forward, as the signed log does. `leafPositions` gives the event positions of the
   * leaves from one index to another (the log's tiles), for reading a few leaves' changes by id.
   */
  async advance(
    view: Pick<ReadView, 'find' | 'getMany'>, size: number, position: number, budgetMs: number,
    leavesThrough: (position: number) => Promise<number>, leafPositions?: (from: number, to: number) => Promise<number[]>,
  ): Promise<number> {
    if (size < this.leaves) throw new RangeError(`the serial index stands at ${this.leaves} leaves, not ${size}`);
    // The budget is this call's own work on the changes: its reads are left out (a read of FerretDB can take longer
    // than the whole budget, and counted in, no serial's output was ever computed: the index stood still), and so is
    // the other work it gives way to.
    let spent = 0;
    while (this.through < position) {
      const changes = leafPositions && size - this.leaves <= FEW_LEAVES
        // Leaves from the index's size on hold the events after its last one (leavesThrough), up to `position`.
        ? await view.getMany<SerialIndexChangeDoc>('tlog', (await leafPositions(this.leaves, size)).map(indexChangeId))
        : await view.find<SerialIndexChangeDoc>('tlog', this.rangeTo(position), { sort: { _id: 1 }, limit: PAGE });
      /** When the work under way since the read or the last turn given began. */
      let ran = performance.now();
      for (const { serial, index_status: status, registered, position: at } of changes) {
        if (this.index.costs(serial)) {
          const now = performance.now();
          if (spent + now - ran >= budgetMs) {
            this.through = at - 1;
            this.leaves = Math.max(this.leaves, await leavesThrough(at - 1));
            return this.leaves;
          }
          if (now - ran >= GIVE_WAY_MS) {
            spent += now - ran;
            await setImmediate();
            ran = performance.now();
          }
        }
        // As the `serials` read model: a status change of a serial never registered changes nothing.
        if (registered || this.index.holds(serial)) this.index.set(serial, status);
        this.through = at;
      }
      spent += performance.now() - ran;
      if (changes.length < PAGE) break;
    }
    this.through = position;
    this.leaves = size;
    return size;
  }

  /** The changes after the index's last one up to `position`, as a range of `_id` (positions sort as their ids). */
  private rangeTo(position: number): Filter {
    return { _id: { $gt: this.through < 0 ? 'index:' : indexChangeId(this.through), $lte: indexChangeId(position) } };
  }
}
