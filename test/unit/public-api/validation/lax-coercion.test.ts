/**
 * Pydantic v2's lax parsing of text values (`shared/read-model/public-api/validation/lax-coercion.ts`): like Python's `float()`
 * and `int()`, it reads digits grouped with underscores, so `"1_000.5"` is 1000.5 (Python: `float("1_000.5")`).
 */
import { expect } from 'chai';
import { coerceModel } from '../../../../shared/read-model/public-api/validation/lax-coercion.ts';
import type { ValidationIssue } from '../../../../shared/read-model/public-api/validation/validation-issue.ts';

describe('lax coercion of query and path text', () => {
  it('reads a number written with underscores between digits (`1_000.5` is 1000.5, no issue)', () => {
    const issues: ValidationIssue[] = [];
    const schema = { type: 'object', properties: { min_price: { type: 'number' } } };
    expect(coerceModel({ min_price: '1_000.5' }, schema, 'text', issues)).to.deep.equal({ min_price: 1000.5 });
    expect(issues).to.deep.equal([]);
  });
});

describe('numbers that are not finite', () => {
  const schema = { type: 'object', properties: { limit: { type: 'integer' }, min_price: { type: 'number' } } };

  it('refuses Infinity for an integer and for a number, from JSON or from text, as finite_number with the input as sent', () => {
    const issues: ValidationIssue[] = [];
    expect(coerceModel({ limit: Infinity, min_price: -Infinity }, schema, 'json', issues)).to.deep.equal({});
    expect(coerceModel({ limit: '2', min_price: '1e400' }, schema, 'text', issues)).to.deep.equal({ limit: 2 });
    const msg = 'Input should be a finite number';
    expect(issues).to.deep.equal([
      { type: 'finite_number', loc: ['limit'], msg, input: Infinity },
      { type: 'finite_number', loc: ['min_price'], msg, input: -Infinity },
      { type: 'finite_number', loc: ['min_price'], msg, input: '1e400' },
    ]);
  });
});
