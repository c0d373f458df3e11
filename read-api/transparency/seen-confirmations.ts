/**
 * Whether the transparency log's owner said, in a confirmation this process saw happen, that the log holds the whole
 * history (a head at or below its position): the word the signer needs before it calls a tree short of the checkpoint
 * signed a shorter history (log-divergence.ts, `divergence`). As the read API's clock does
 * (shared/read-model/public-api/read-model-clock.ts), a confirmation is an opaque marker, and what counts is that it
 * changed while this process looked. Not seen happen, so not its owner's word now:
 * - the one there at this process's first look, or when it put its kept checkpoint back: a read store restored from
 *   a copy holds the copy's, of the head its log had reached then, while the event store may hold more;
 * - one of a head below the one its look before found in that generation: heads confirmed there only rise, so it is
 *   an older one put back (by another process, which put the checkpoint back first);
 * - the first of a generation its look before did not read.
 * Each stays unseen while it stands; the next its owner writes (an idle projector confirms every second) is seen, so
 * a history truly shorter than what was signed is refused once its owner confirms it (docs/api.md, "Stores put back
 * from a copy").
 */
import type { CheckpointState, HeadConfirmation } from '../../shared/read-model/projections/control-docs.ts';

export class SeenConfirmations {
  /** The confirmation the look before found, of which generation, and whether it was seen happen; none at first. */
  #before: { generation: number; confirmed: HeadConfirmation | undefined; seen: boolean } | undefined;

  /** The kept checkpoint was put back over an older one: the store's confirmation now is taken as at a first look. */
  putBack(): void {
    this.#before = undefined;
  }

  /** At a look, whether `state` (the live checkpoint of the log, of `generation`) holds such a word of its owner. */
  atHead(generation: number, state: CheckpointState): boolean {
    const confirmed = state.confirmed ?? undefined;
    const before = this.#before;
    const same = before?.generation === generation;
    const seen = same && before.confirmed?.head === confirmed?.head && before.confirmed?.at === confirmed?.at
      ? before.seen
      : same && !(before.confirmed && confirmed && confirmed.head < before.confirmed.head);
    this.#before = { generation, confirmed, seen };
    return seen && confirmed !== undefined && confirmed.head <= state.position;
  }
}
