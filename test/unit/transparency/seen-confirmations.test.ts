/**
 * When the log's signer takes its owner's confirmation as the word that the log holds the whole history
 * (read-api/transparency/seen-confirmations.ts): only a confirmation it saw happen, of a head the log had reached. Each
 * case gives the looks in order (the generation and the live checkpoint each found) and what each answers.
 */
import { expect } from 'chai';
import type { CheckpointState } from '../../../shared/read-model/projections/control-docs.ts';
import { SeenConfirmations } from '../../../read-api/transparency/seen-confirmations.ts';

/** The log's live checkpoint at `position` in `generation`, confirmed at `at` as having reached `head` (none: never confirmed). */
const checkpoint = (generation: number, position: number, confirmed?: { head: number; at: string }): CheckpointState => ({
  _id: `checkpoint:transparency-log:${generation}`, projection: 'transparency-log', generation, position, token: 1, status: 'running',
  parked: null, updated_at: null, ...(confirmed ? { confirmed } : {}),
});

/** What each look of `looks` answers, in order, on one SeenConfirmations; `'put back'` between two looks puts the kept checkpoint back. */
function judged(...looks: (CheckpointState | 'put back')[]): boolean[] {
  const confirmations = new SeenConfirmations();
  return looks.flatMap((look) => {
    if (look === 'put back') {
      confirmations.putBack();
      return [];
    }
    return [confirmations.atHead(look.generation, look)];
  });
}

describe('the log signer\'s word that its log holds the whole history: a confirmation it saw happen', () => {
  it('is not the one there at its first look, but the next its owner writes, and stays while it stands', () => {
    expect(judged(
      checkpoint(1, 4, { head: 4, at: 'first' }),
      checkpoint(1, 4, { head: 4, at: 'first' }),
      checkpoint(1, 4, { head: 4, at: 'again' }),
      checkpoint(1, 4, { head: 4, at: 'again' }),
    )).to.deep.equal([false, false, true, true]);
  });

  it('is none while the owner confirms a head past its position (catching up) or never confirmed', () => {
    expect(judged(
      checkpoint(1, 2),
      checkpoint(1, 2, { head: 6, at: 'behind' }),
      checkpoint(1, 6, { head: 6, at: 'caught up' }),
    )).to.deep.equal([false, false, true]);
  });

  it('is not one of a head below the one the look before found in that generation (an older one put back), but the next after it', () => {
    expect(judged(
      checkpoint(1, 6, { head: 6, at: 'start' }),
      checkpoint(1, 6, { head: 6, at: 'after the copy' }),
      checkpoint(1, 4, { head: 4, at: 'the copy' }),
      checkpoint(1, 4, { head: 4, at: 'the copy' }),
      checkpoint(1, 4, { head: 4, at: 'after the restore' }),
    )).to.deep.equal([false, true, false, false, true]);
  });

  it('is not the one found when it put its kept checkpoint back, whatever its head, but the next after it', () => {
    expect(judged(
      checkpoint(1, 4, { head: 4, at: 'start' }),
      checkpoint(1, 4, { head: 4, at: 'confirmed' }),
      'put back',
      checkpoint(1, 4, { head: 4, at: 'a copy of the same head' }),
      checkpoint(1, 4, { head: 4, at: 'after the put-back' }),
    )).to.deep.equal([false, true, false, true]);
  });

  it('is not the first of a generation the look before did not read, but the next in it', () => {
    expect(judged(
      checkpoint(1, 4, { head: 4, at: 'start' }),
      checkpoint(1, 4, { head: 4, at: 'confirmed' }),
      checkpoint(2, 4, { head: 4, at: 'the switch' }),
      checkpoint(1, 4, { head: 4, at: 'confirmed' }),
      checkpoint(1, 4, { head: 4, at: 'confirmed again' }),
    )).to.deep.equal([false, true, false, false, true]);
  });
});
