/**
 * The `input` an error answer echoes is cut below 20 levels (issue 17, finding 6; `test/api/price.test.ts` holds it
 * for nested arrays through the price route). Here the same bound for nested objects, the shape of a JSON body's
 * members, directly on `cappedInput`.
 */
import { expect } from 'chai';
import { cappedInput } from '../../../../shared/read-model/public-api/validation/capped-input.ts';

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

describe('cappedInput (the size of the echoed input, issue 42, item 1)', () => {
  it('echoes an input of up to 256 values and 4,096 characters whole', () => {
    const parent = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, i]));
    expect(cappedInput(parent)).to.deep.equal(parent);
    expect(cappedInput('x'.repeat(4_000))).to.equal('x'.repeat(4_000));
  });

  it('writes `[truncated]` in place of an input with more values or characters, however large', () => {
    expect(cappedInput(Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, i])))).to.equal('[truncated]');
    expect(cappedInput(Array.from({ length: 1_000_000 }, () => ({})))).to.equal('[truncated]');
    expect(cappedInput({ description: 'x'.repeat(5_000) })).to.equal('[truncated]');
  });
});
