/**
 * The problems of a JSON document a command reads (a watch file, a catalogue file), found as the admin API finds a
 * body's (document-issues.ts) and said one line each: where in the document (`images[0].role`), what is wrong, and
 * what the field takes (`name: Input should be a valid dictionary; expected an object {en, fr}`).
 */
import type { Loc, ValidationIssue } from '../../shared/read-model/public-api/validation/validation-issue.ts';
import { documentIssues } from '../admin/document-issues.ts';

export interface DocumentProblems {
  lines: string[];
  /** How many problems there are, listed or not. */
  count: number;
  /** False when the search stopped before counting them all: there are at least `count`. */
  countedAll: boolean;
}

/** `images[0].alt.en`: where in the document an issue is; `whole` names the document itself. */
function place(loc: Loc, whole: string): string {
  let said = '';
  for (const step of loc.slice(1)) {
    if (typeof step === 'number') said += `[${step}]`;
    else if (step === '[key]') said += ' (its name)';
    else said += said === '' ? step : `.${step}`;
  }
  return said === '' ? whole : said;
}

/** `3 problems`, or `at least 10000 problems`. */
export function problemCount(problems: DocumentProblems): string {
  return `${problems.countedAll ? '' : 'at least '}${problems.count} problem${problems.count === 1 ? '' : 's'}`;
}

/** The problems of `candidate` against `schema`, or null when it has none; `hint` may add to a line. */
export async function documentProblems(
  schema: object, candidate: unknown, whole: string, hint: (found: ValidationIssue) => string = () => '',
): Promise<DocumentProblems | null> {
  const issues = await documentIssues(schema, candidate);
  if (issues.size === 0) return null;
  const lines = issues.detail().map((found) => `${place(found.loc, whole)}: ${found.msg}${hint(found)}`);
  return { lines, count: issues.size, countedAll: !issues.stopped };
}
