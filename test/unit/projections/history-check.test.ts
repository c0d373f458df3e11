/**
 * `historyLost` (shared/read-model/projections/history-check.ts): whether the history still holds the event a checkpoint counts as
 * applied last (docs/api.md, "Stores put back from a copy"), judged over a history given here as positions and ids:
 * the reasons a projection parks with, and a checkpoint with nothing recorded checked only against the head.
 */
import { expect } from 'chai';
import type { StoredEvent } from '../../../shared/ports/event-store.ts';
import { historyLost } from '../../../shared/read-model/projections/history-check.ts';

/** A history of `[position, id]` pairs, counting what is asked of it. */
function history(events: readonly (readonly [number, string])[]) {
  const asked = { reads: 0, heads: 0 };
  return {
    asked,
    readAll: async ({ after, limit }: { after: number; limit: number }) => {
      asked.reads += 1;
      return events.filter(([position]) => position > after).slice(0, limit)
        .map(([position, id]) => ({ position, id }) as unknown as StoredEvent);
    },
    headPosition: async () => {
      asked.heads += 1;
      return events.at(-1)?.[0] ?? 0;
    },
  };
}

const copy = [[1, 'a'], [2, 'b'], [3, 'c']] as const;
const atC = { position: 3, applied: { id: 'c', after: 2 } };

describe('the history a checkpoint counts, found again before a projector reads on', () => {
  it('holds: the event applied last is where the checkpoint says, whatever follows it', async () => {
    for (const readHead of [false, true]) {
      const grown = history([...copy, [4, 'd']]);
      expect(await historyLost(grown, atC, readHead), `readHead ${readHead}`).to.equal(undefined);
      expect(grown.asked, 'one read of one event, no head').to.deep.equal({ reads: 1, heads: 0 });
    }
  });

  it('is lost when another event took the checkpoint\'s position, the history as long or longer: named, both ids', async () => {
    for (const events of [[[1, 'a'], [2, 'b'], [3, 'x']], [[1, 'a'], [2, 'b'], [3, 'x'], [4, 'y']]] as const) {
      const lost = await historyLost(history(events), atC, false);
      expect(lost?.head).to.equal(events.at(-1)![0]);
      expect(lost?.reason).to.equal('the event store holds event x at position 3, where this projection\'s checkpoint applied event c: '
        + 'the history was rewritten under the read models (put back to an older copy, then appended to); rebuild the read models from it (`watchcat rebuild`)');
    }
  });

  it('is lost when no event starts at the checkpoint\'s position any more (a gap, a log rewritten): "no event"', async () => {
    const lost = await historyLost(history([[1, 'a'], [2, 'b'], [5, 'c'], [6, 'd']]), atC, false);
    expect(lost?.reason).to.match(/^the event store holds no event at position 3, where this projection's checkpoint applied event c: /);
  });

  it('is lost when the history ends before the checkpoint: the head named, with or without an event recorded', async () => {
    for (const checkpoint of [atC, { position: 3 }]) {
      const lost = await historyLost(history([[1, 'a'], [2, 'b']]), checkpoint, true);
      expect(lost).to.deep.equal({
        head: 2, reason: 'the event store\'s last event is at position 2, before this projection\'s checkpoint at 3: '
          + 'the history was put back to an older copy; rebuild the read models from it (`watchcat rebuild`)',
      });
    }
  });

  it('checks a checkpoint with no event recorded (position 0, an earlier release\'s) only against the head, and only when asked', async () => {
    const quiet = history(copy);
    expect(await historyLost(quiet, { position: 3 }, false)).to.equal(undefined);
    expect(quiet.asked, 'nothing to check: nothing read').to.deep.equal({ reads: 0, heads: 0 });
    for (const events of [copy, [...copy, [4, 'd']]] as const) {
      const looked = history(events);
      expect(await historyLost(looked, { position: 3 }, true), 'the head at or past it').to.equal(undefined);
      expect(looked.asked).to.deep.equal({ reads: 0, heads: 1 });
    }
  });
});
