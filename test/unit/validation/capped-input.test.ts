/**
 * The `input` an error answer echoes is cut below 20 levels (issue 17, finding 6; `test/api/price.test.ts` holds it
 * for nested arrays through the price route). Here the same bound for nested objects, the shape of a JSON body's
 * members, directly on `cappedInput`.
 */
import { expect } from 'chai';
import { cappedInput } from '../../../shared/public-api/validation/capped-input.ts';

describe('cappedInput (the echoed input of an error answer)', () => {
  it('keeps 20 levels of nested objects and writes `[truncated]` in place of the 21st', () => {
    let nested: unknown = 'leaf';
    for (let i = 0; i < 25; i++) nested = { a: nested };
    let echoed = cappedInput(nested);
    let depth = 0;
    while (typeof echoed === 'object' && echoed !== null) {
      expect(Object.keys(echoed), `level ${depth}`).to.deep.equal(['a']);
      echoed = (echoed as { a: unknown }).a;
      depth += 1;
    }
    expect(depth).to.equal(20);
    expect(echoed).to.equal('[truncated]');
  });
});
