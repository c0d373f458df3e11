/**
 * How many issues a 422 lists, and how the rest is told. Error work must stay bounded whatever a body holds (a
 * 16 MiB catalogue of empty entries has millions of failing fields), so an answer lists at most `MAX_LISTED_ISSUES`
 * issues, in the order they were found, then one last entry of the same shape counting those left out:
 *
 *   {"type": "too_many_errors", "loc": ["body"], "msg": "1234 more errors not listed", "input": null,
 *    "ctx": {"not_listed": 1234, "counted_all": true}}
 *
 * Its `loc` is the part of the first issue left out. Counting stops at `MAX_COUNTED_ISSUES`: past it the entry says
 * "at least" (`counted_all: false`) and the validation stops looking, so a huge body costs no more than that.
 * Below the bound every failing field is still listed at once, as the contract asks.
 */
import type { ValidationIssue } from './issue-shape.ts';

const MAX_LISTED_ISSUES = 50;
/** Issues counted, listed or not, before a validation may stop looking. */
const MAX_COUNTED_ISSUES = 10_000;

/** Collects issues up to the bound and counts the rest; `full` once a validation may stop looking. */
export class IssueCollector {
  readonly listed: ValidationIssue[] = [];
  notListed = 0;
  /** Set once issues were left uncounted (past the count, or by a validation that stopped looking once `full`). */
  stopped = false;
  /** The request part of the first issue left out. */
  private firstLeftOut: string | undefined;

  /** Lists `found`, or counts it once the list is full; past `MAX_COUNTED_ISSUES` it is only noted that there are more. */
  add(found: ValidationIssue): void {
    if (this.listed.length < MAX_LISTED_ISSUES) this.listed.push(found);
    else this.leaveOut(1, String(found.loc[0] ?? 'body'));
  }

  /** Counts `count` issues of a request part (`query`, `body`...) found and not offered to `add`. */
  leaveOut(count: number, part: string): void {
    if (count === 0) return;
    this.firstLeftOut ??= part;
    const counted = Math.min(count, MAX_COUNTED_ISSUES - this.size);
    this.notListed += counted;
    if (counted < count) this.stopped = true;
  }

  /** How many more issues would be listed. */
  get room(): number {
    return MAX_LISTED_ISSUES - this.listed.length;
  }

  get size(): number {
    return this.listed.length + this.notListed;
  }

  get full(): boolean {
    return this.listed.length + this.notListed >= MAX_COUNTED_ISSUES;
  }

  /**
   * The collector whose `detail()` is `detail`, as another one gave it: how a check made in another thread
   * (services/admin/catalogue-check.ts) hands its bound issues back.
   */
  static fromDetail(detail: readonly ValidationIssue[]): IssueCollector {
    const collector = new IssueCollector();
    const last = detail.at(-1);
    const counted = last?.type === 'too_many_errors' ? last.ctx as { not_listed: number; counted_all: boolean } : undefined;
    collector.listed.push(...(counted ? detail.slice(0, -1) : detail));
    if (counted) {
      collector.notListed = counted.not_listed;
      collector.stopped = !counted.counted_all;
      collector.firstLeftOut = String(last!.loc[0]);
    }
    return collector;
  }

  /** The answer's `detail`: the listed issues, then the entry counting the rest if any was left out. */
  detail(): ValidationIssue[] {
    if (this.notListed === 0) return this.listed;
    return [...this.listed, notListedEntry(this.firstLeftOut ?? 'body', this.notListed, !this.stopped)];
  }
}

function notListedEntry(part: string, count: number, countedAll: boolean): ValidationIssue {
  return {
    type: 'too_many_errors',
    loc: [part],
    msg: `${countedAll ? '' : 'At least '}${count} more error${count === 1 ? '' : 's'} not listed`,
    input: null,
    ctx: { not_listed: count, counted_all: countedAll },
  };
}

/** `issues` cut to the bound, with the entry counting the rest. */
export function boundedIssues(issues: readonly ValidationIssue[]): ValidationIssue[] {
  const collector = new IssueCollector();
  for (const found of issues) collector.add(found);
  return collector.detail();
}
