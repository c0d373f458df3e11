/**
 * The bound of a 422 (issue 42, item 1; shared/read-model/public-api/validation/issue-bound.ts): every issue up to 50, then
 * one `too_many_errors` entry of the same shape counting the rest, exactly up to 10,000 issues and "at least" past
 * that; the entry's `loc` is the request part of the first issue left out.
 */
import { expect } from 'chai';
import { IssueCollector } from '../../../../shared/read-model/public-api/validation/issue-bound.ts';
import { RequestValidationError, issue, type ValidationIssue } from '../../../../shared/read-model/public-api/validation/validation-issue.ts';

const missing = (part: string, i: number): ValidationIssue => issue.missing([part, `f${i}`], null);
const issues = (count: number, part = 'body') => Array.from({ length: count }, (_, i) => missing(part, i));

describe('the bound on a 422\'s issues', () => {
  it('lists 50 issues as they are, with no entry for the rest', () => {
    expect(new RequestValidationError(issues(50)).issues).to.deep.equal(issues(50));
  });

  it('lists the first 50 of 51, then an entry counting the one left out', () => {
    expect(new RequestValidationError(issues(51)).issues).to.deep.equal([
      ...issues(50),
      { type: 'too_many_errors', loc: ['body'], msg: '1 more error not listed', input: null, ctx: { not_listed: 1, counted_all: true } },
    ]);
  });

  it('names the part of the first issue left out', () => {
    const mixed = [...issues(50, 'query'), ...issues(3, 'path'), ...issues(2, 'body')];
    expect(new RequestValidationError(mixed).issues.at(-1)).to.deep.equal({
      type: 'too_many_errors', loc: ['path'], msg: '5 more errors not listed', input: null, ctx: { not_listed: 5, counted_all: true },
    });
  });

  it('counts up to 10,000 issues exactly, and says "at least" past them', () => {
    expect(new RequestValidationError(issues(10_000)).issues.at(-1)).to.deep.include({ msg: '9950 more errors not listed', ctx: { not_listed: 9_950, counted_all: true } });
    expect(new RequestValidationError(issues(20_000)).issues.at(-1)).to.deep.include({ msg: 'At least 9950 more errors not listed', ctx: { not_listed: 9_950, counted_all: false } });
  });

  it('gives back, from a detail another thread sent, the very detail: listed alone, counted all, or counted in part', () => {
    for (const found of [issues(7), issues(51), [...issues(50, 'query'), ...issues(3, 'path')], issues(20_000)]) {
      const sent = new RequestValidationError(found).issues;
      expect(new RequestValidationError(IssueCollector.fromDetail(sent)).issues).to.deep.equal(sent);
    }
  });
});
