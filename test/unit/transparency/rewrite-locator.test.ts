/**
 * Where a monitor says a rewritten history lies (services/audit/rewrite-locator.ts): for every count of trees seen and
 * every boundary between those the new tree extends and those it does not, the bisection names that boundary, asks
 * at most ceil(log2(c + 1)) questions, and says the rewrite lies in the leaves between the two trees' sizes.
 */
import { expect } from 'chai';
import { describeRewrite, locateRewrite, type SeenTree } from '../../../services/audit/rewrite-locator.ts';

/** `count` trees seen, of sizes 3, 5, 7, ... (odd gaps, so no size is its own index). */
const seenTrees = (count: number): SeenTree[] => Array.from({ length: count }, (_, i) => ({ size: 3 + 2 * i, seen_at: `t${i}` }));

describe('transparency log monitor: where a rewrite lies among the trees seen', () => {
  it('finds the last tree the new one extends and the first it does not, in O(log c) questions', async () => {
    for (let count = 0; count <= 9; count += 1) {
      const seen = seenTrees(count);
      for (let extended = 0; extended <= count; extended += 1) {
        let asked = 0;
        const rewrite = await locateRewrite(seen, async (tree) => {
          asked += 1;
          return seen.indexOf(tree) < extended;
        });
        const what = `${extended} of ${count} extended`;
        expect(asked, what).to.be.at.most(Math.ceil(Math.log2(count + 1)));
        if (extended === count) {
          expect(rewrite, what).to.equal(undefined);
          continue;
        }
        expect(rewrite?.broken, what).to.equal(seen[extended]);
        expect(rewrite?.kept, what).to.equal(extended === 0 ? undefined : seen[extended - 1]);
      }
    }
  });

  it('says which leaves were rewritten, and when the two trees were seen', () => {
    const [a, b, c] = seenTrees(3) as [SeenTree, SeenTree, SeenTree];
    expect(describeRewrite({ kept: a, broken: c })).to.equal(
      'it extends the tree of 3 leaves seen at t0, not the one of 7 seen at t2: the history was rewritten in leaves 3 to 6 (leaf i is the (i+1)-th event in store order)',
    );
    expect(describeRewrite({ kept: { size: 6, seen_at: 't9' }, broken: c })).to.contain('rewritten in leaf 6 (');
    expect(describeRewrite({ broken: b })).to.equal(
      'it extends no tree this monitor saw, not even the one of 5 leaves seen at t1: the history was rewritten in leaves 0 to 4 (leaf i is the (i+1)-th event in store order)',
    );
  });
});
