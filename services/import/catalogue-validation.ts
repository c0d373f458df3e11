/**
 * Checks a catalogue file before anything is imported: its shape against the `CatalogueFile` schema (every
 * problem at once, with where it is), then what a schema cannot say: unique codes, references and serials, and at
 * most one default option per category.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { CATEGORY_KEYS } from '../../shared/events/index.ts';
import { CatalogueFile } from '../catalogue/catalogue-file.ts';

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

function semanticProblems(file: CatalogueFile): string[] {
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
  return problems;
}

/** The file as a `CatalogueFile`, or `CatalogueFileError` listing every problem found. */
export function validateCatalogueFile(candidate: unknown): CatalogueFile {
  const shapeIssues = shapeProblems(CatalogueFile, candidate);
  if (shapeIssues.length > 0) throw new CatalogueFileError(shapeIssues);
  const file = candidate as CatalogueFile;
  const problems = semanticProblems(file);
  if (problems.length > 0) throw new CatalogueFileError(problems);
  return file;
}
