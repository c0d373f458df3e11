/**
 * Checks a catalogue file before anything is imported: its shape against the `CatalogueFile` schema (every
 * problem at once, with where it is), then what a schema cannot say: unique codes, references and serials, at most
 * one default option per category, and what the deciders refuse in an entry whatever the store holds (a text blank
 * once trimmed, a manufacture year in the future), asked of the very functions they ask, so that `import --check`
 * cannot pass what an import then refuses. What only the store can tell (an unknown collection, a withdrawn watch)
 * the import rehearses before it appends anything (import-catalogue.ts).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { CATEGORY_KEYS, type LocalizedText } from '../../shared/events/index.ts';
import { CatalogueFile } from '../catalogue/catalogue-file.ts';
import { collectionTexts } from '../write/collection/collection.decide.ts';
import { labelText } from '../write/configurator/configurator.decide.ts';
import { blankTexts, NON_BLANK_TEXT } from '../write/domain/texts.ts';
import { FIRST_MANUFACTURE_YEAR, manufactureYearBreach, manufactureYears } from '../write/domain/years.ts';
import { watchTexts } from '../write/watch/watch.decide.ts';

export class CatalogueFileError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid catalogue file: ${problems.slice(0, 10).join('; ')}${problems.length > 10 ? `; and ${problems.length - 10} more` : ''}`);
    this.name = 'CatalogueFileError';
  }
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
let shapeAjv: Ajv | undefined;
const validators = new WeakMap<object, ValidateFunction>();
/** Compiled on first use: only imports need them, and compiling them would slow every process start. */
function shapeValidator(schema: object): ValidateFunction {
  // `verbose`: a union's error carries its branches, so a choice of constants is said as its allowed values.
  shapeAjv ??= addFormats(new Ajv({ allErrors: true, strict: false, verbose: true }));
  let validate = validators.get(schema);
  if (!validate) validators.set(schema, (validate = shapeAjv.compile(schema)));
  return validate;
}

/** Every way `candidate` departs from `schema`, one line each naming where (`/images/0/role must be one of ...`). */
function shapeProblems(schema: object, candidate: unknown): string[] {
  const validate = shapeValidator(schema);
  return validate(candidate) ? [] : (validate.errors ?? []).map(shapeProblem).filter((problem) => problem !== undefined);
}

const quoted = (values: readonly unknown[]) => values.map((value) => JSON.stringify(value)).join(', ');

/** One ajv error as a line naming where in the file, or undefined for the noise a choice of constants makes. */
function shapeProblem(error: ErrorObject): string | undefined {
  const where = error.instancePath || '/';
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'const': return error.schemaPath.includes('/anyOf/') ? undefined : `${where} must be ${JSON.stringify(params['allowedValue'])}`;
    case 'enum': return `${where} must be one of ${quoted(params['allowedValues'] as unknown[])}`;
    case 'anyOf': {
      const branches = error.schema as { const?: unknown }[];
      return branches.every((branch) => 'const' in branch) ? `${where} must be one of ${quoted(branches.map((branch) => branch.const))}` : `${where} ${error.message}`;
    }
    case 'additionalProperties': return `${where === '/' ? '' : where}/${String(params['additionalProperty'])} is not a property of this entry`;
    default: return `${where} ${error.message ?? 'is invalid'}`;
  }
}

function duplicates(values: string[], what: string): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const value of values) {
    if (seen.has(value)) problems.push(`${what} ${value} appears more than once`);
    seen.add(value);
  }
  return problems;
}

/** One line per blank language of the texts of the entry at `place` (`watches[3]`), as the deciders judge them. */
function blankLines(place: string, texts: Record<string, LocalizedText | undefined>): string[] {
  return blankTexts(texts).map(({ field, lang }) => `${place}.${field}.${lang}: Text is blank once trimmed; expected ${NON_BLANK_TEXT}`);
}

/** What the serial decider would say of the year of the serial at `place`, once `latest` is the latest year begun. */
function yearLine(place: string, year: number, latest: number): string[] {
  const breach = manufactureYearBreach(year, latest);
  if (breach === null) return [];
  const said = breach === 'future' ? `${year} is in the future: the latest year begun anywhere is ${latest}` : `${year} is not a whole year from ${FIRST_MANUFACTURE_YEAR}`;
  return [`${place}.manufacture_year: ${said}; expected ${manufactureYears(latest)}`];
}

function semanticProblems(file: CatalogueFile, latestYear: number): string[] {
  const problems = [
    ...duplicates(file.collections.map((c) => c.code), 'collection'),
    ...duplicates(file.watches.map((w) => w.reference), 'watch'),
    ...duplicates(file.configurators.map((c) => c.collection), 'configurator of collection'),
    ...duplicates(file.serials.map((s) => s.serial), 'serial'),
  ];
  for (const configurator of file.configurators) {
    const where = `configurator of collection ${configurator.collection}`;
    problems.push(...duplicates(configurator.accessories.map((a) => a.code), `${where}: accessory`));
    for (const key of CATEGORY_KEYS) {
      const options = configurator.categories[key] ?? [];
      problems.push(...duplicates(options.map((o) => o.code), `${where}, category ${key}: option`));
      if (options.filter((o) => o.default).length > 1) problems.push(`${where}, category ${key}: more than one default option`);
    }
  }
  file.collections.forEach((collection, i) => problems.push(...blankLines(`collections[${i}]`, collectionTexts(collection))));
  file.watches.forEach((watch, i) => problems.push(...blankLines(`watches[${i}]`, watchTexts(watch))));
  file.configurators.forEach((configurator, i) => {
    for (const key of CATEGORY_KEYS) {
      configurator.categories[key]?.forEach((option, j) => problems.push(...blankLines(`configurators[${i}].categories.${key}[${j}]`, labelText(option))));
    }
    configurator.accessories.forEach((accessory, j) => problems.push(...blankLines(`configurators[${i}].accessories[${j}]`, labelText(accessory))));
  });
  file.serials.forEach((serial, i) => problems.push(...yearLine(`serials[${i}]`, serial.manufacture_year, latestYear)));
  return problems;
}

/**
 * The file as a `CatalogueFile`, or `CatalogueFileError` listing every problem found. `latestYear` is the latest year
 * begun anywhere by the clock of whoever registers the serials (domain/years.ts, `latestYearBegun`).
 */
export function validateCatalogueFile(candidate: unknown, latestYear: number): CatalogueFile {
  const shapeIssues = shapeProblems(CatalogueFile, candidate);
  if (shapeIssues.length > 0) throw new CatalogueFileError(shapeIssues);
  const file = candidate as CatalogueFile;
  const problems = semanticProblems(file, latestYear);
  if (problems.length > 0) throw new CatalogueFileError(problems);
  return file;
}
