/**
 * The watch `watchcat watch create` publishes: a file (`--file`, or `watchcat watch example` to start from) with
 * flags laid over it for the fields a back-office user types most, checked as the admin API checks a body
 * (document-problems.ts), so that a refusal names each field's place and what it takes, and a missing field the flags
 * that give it (issue 44, item 5).
 */
import { Option } from 'commander';
import { LANGUAGES, STOCK_STATUSES } from '../../shared/events/index.ts';
import { centsToEuros } from '../../shared/money/cents.ts';
import { isPlainObject } from '../../shared/read-model/public-api/validation/request-schema.ts';
import type { Loc, ValidationIssue } from '../../shared/read-model/public-api/validation/validation-issue.ts';
import { euros, identifier } from './arguments.ts';
import { documentProblems, problemCount, type DocumentProblems } from './document-problems.ts';

/** A watch or watch edit that is not what its schema says; each problem was written on stderr before. */
export class WatchDocumentError extends Error {
  constructor(what: string, problems: DocumentProblems) {
    super(`${what}: ${problemCount(problems)} (listed above); \`watchcat watch example\` prints a complete watch file to start from`);
    this.name = 'WatchDocumentError';
  }
}

/** A flag of `watch create`: the field it sets (a text's language for a text) and how the typed value is read. */
interface WatchFlag {
  /** commander's flags, `--name-en <text>`; the long name is the flag's name in the options. */
  flags: string;
  description: string;
  path: readonly [string] | readonly [string, string];
  parse?: (typed: string) => unknown;
  choices?: readonly string[];
  /** The field's value from the parsed one, when they differ (cents to euros, `yes` to true). */
  value?: (parsed: never) => unknown;
}

const TEXTS = [['name', 'name'], ['short_description', 'short description'], ['description', 'description']] as const;
const LANGUAGE_NAMES = { en: 'English', fr: 'French' } as const;

const WATCH_FLAGS: readonly WatchFlag[] = [
  { flags: '--reference <ref>', description: 'reference of the watch (upper-cased)', path: ['reference'], parse: identifier },
  { flags: '--collection <code>', description: 'code of its collection, e.g. lumiere', path: ['collection'] },
  ...TEXTS.flatMap(([field, words]) => LANGUAGES.map((lang): WatchFlag => ({
    flags: `--${field.replaceAll('_', '-')}-${lang} <text>`, description: `its ${words} in ${LANGUAGE_NAMES[lang]}`, path: [field, lang],
  }))),
  { flags: '--price <eur>', description: 'catalogue price in euros, e.g. 12500 or 12500.50', path: ['price_eur'], parse: euros, value: centsToEuros },
  { flags: '--stock <status>', description: 'stock status', path: ['stock_status'], choices: STOCK_STATUSES },
  {
    flags: '--customizable <answer>', description: 'whether it is a model of its collection\'s configurator', path: ['customizable'],
    choices: ['yes', 'no'], value: (answer: string) => answer === 'yes',
  },
];

/** The options of `watch create` for its flags, made for each program (commander keeps what it parses per command). */
export function watchFlagOptions(): Option[] {
  return WATCH_FLAGS.map(({ flags, description, parse, choices }) => {
    const option = new Option(flags, description);
    if (choices) option.choices(choices);
    if (parse) option.argParser(parse);
    return option;
  });
}

const attributeOf = (flag: WatchFlag) => new Option(flag.flags).attributeName();
const longOf = (flag: WatchFlag) => flag.flags.split(' ')[0]!;

/** `base` (a file's JSON) with the value of every flag given laid over it; `base` itself is left as it was. */
export function withFlags(base: unknown, given: Record<string, unknown>): unknown {
  const used = WATCH_FLAGS.filter((flag) => given[attributeOf(flag)] !== undefined);
  // A file that is no object stays as it is, to be refused as such.
  if (used.length === 0 || !isPlainObject(base)) return base;
  const watch: Record<string, unknown> = { ...base };
  for (const flag of used) {
    const parsed = given[attributeOf(flag)];
    const set = flag.value ? flag.value(parsed as never) : parsed;
    const [field, lang] = flag.path;
    if (lang === undefined) watch[field] = set;
    else watch[field] = { ...(isPlainObject(watch[field]) ? watch[field] : {}), [lang]: set };
  }
  return watch;
}

/** The flags that give what is missing at `loc`: `--name-en, --name-fr` for `name`, `--name-fr` for `name.fr`. */
function flagsFor(loc: Loc): string[] {
  const path = loc.slice(1);
  return WATCH_FLAGS.filter((flag) => path.every((step, i) => flag.path[i] === step)).map(longOf);
}

/**
 * `candidate` typed by `schema`, or a `WatchDocumentError` after one note per problem, each line led by `source`
 * (the file's name, when there is one) and, with `withFlagHints`, ending with the flags that give a missing field.
 */
export async function checkedWatch<T>(
  schema: object, candidate: unknown, context: { note(line: string): void },
  options: { what: string; source?: string; withFlagHints?: boolean },
): Promise<T> {
  const hint = (found: ValidationIssue) => {
    const flags = options.withFlagHints && found.type === 'missing' ? flagsFor(found.loc) : [];
    return flags.length === 0 ? '' : ` (${flags.join(', ')})`;
  };
  const problems = await documentProblems(schema, candidate, 'the watch', hint);
  if (problems === null) return candidate as T;
  const lead = options.source === undefined ? '' : `${options.source}: `;
  for (const line of problems.lines) context.note(`${lead}${line}`);
  throw new WatchDocumentError(options.what, problems);
}
