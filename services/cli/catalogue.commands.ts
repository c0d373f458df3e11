/**
 * `watchcat seed` and `watchcat import FILE`: bring the store to a catalogue's state, idempotently. `import --check`
 * only checks a file (every problem, each with its place in the file and what the field takes) and `import --schema`
 * prints the file's JSON Schema: neither opens a store, nor does an import of a file with problems.
 */
import { readFile } from 'node:fs/promises';
import { CatalogueFile, catalogueFileJsonSchema } from '../catalogue/catalogue-file.ts';
import { CatalogueFileError, validateCatalogueFile } from '../import/catalogue-validation.ts';
import { importCatalogue } from '../import/import-catalogue.ts';
import type { ImportReport } from '../import/import-progress.ts';
import { seedDemo } from '../import/seed-demo.ts';
import { latestYearBegun } from '../write/domain/years.ts';
import type { CliContext } from './cli-context.ts';
import type { CliModule } from './cli-module.ts';
import { documentProblems, problemCount } from './document-problems.ts';
import { importProgress } from './import-progress-bar.ts';

/** A file a command reads (a catalogue, one watch) that cannot be read or is not what it should be. */
export class CatalogueReadError extends Error {
  constructor(file: string, reason: string, what = 'catalogue file') {
    super(`cannot read ${what} ${file}: ${reason}`);
    this.name = 'CatalogueReadError';
  }
}

/**
 * JSON is UTF-8 (RFC 8259, section 8.1). Read leniently, a file saved in Latin-1 would have each accented letter
 * written into the catalogue as U+FFFD; a byte-order mark is kept, so JSON.parse refuses it as before.
 */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The JSON of `file`; `what` names the file in a refusal. */
export async function readJsonFile(file: string, what = 'catalogue file'): Promise<unknown> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new CatalogueReadError(file, (error as NodeJS.ErrnoException).code ?? String(error), what);
  }
  let text: string;
  try {
    text = STRICT_UTF8.decode(bytes);
  } catch {
    throw new CatalogueReadError(file, 'not UTF-8 (save the file as UTF-8)', what);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CatalogueReadError(file, (error as Error).message, what);
  }
}

async function withProgress(context: CliContext, what: string, run: (onProgress: ReturnType<typeof importProgress>['onProgress']) => Promise<ImportReport>) {
  const progress = importProgress();
  let report: ImportReport;
  try {
    report = await run(progress.onProgress);
  } finally {
    progress.stop();
  }
  for (const warning of report.warnings) context.note(`warning: ${warning}`);
  context.out(report.commands === 0
    ? `${what}: already up to date, nothing appended (position ${report.position})`
    : `${what}: ${report.commands} commands, ${report.events} events appended, up to position ${report.position}`);
}

/**
 * The catalogue file `catalogue` typed, or a refusal after one line per problem written with `write`: first its shape,
 * each problem at its place with what the field takes (document-problems.ts), then what a schema cannot say (a
 * serial listed twice, a text blank once trimmed: catalogue-validation.ts).
 */
async function checkedCatalogue(file: string, catalogue: unknown, write: (line: string) => void): Promise<CatalogueFile> {
  const shape = await documentProblems(CatalogueFile, catalogue, 'the file');
  let problems: { lines: string[]; count: string };
  if (shape !== null) problems = { lines: shape.lines, count: problemCount(shape) };
  else {
    try {
      // The clock of this machine, which registers the serials when the file is imported from here.
      return validateCatalogueFile(catalogue, latestYearBegun(new Date()));
    } catch (error) {
      if (!(error instanceof CatalogueFileError)) throw error;
      problems = { lines: error.problems, count: `${error.problems.length} problem${error.problems.length === 1 ? '' : 's'}` };
    }
  }
  for (const line of problems.lines) write(line);
  throw new CatalogueReadError(file, `${problems.count} (listed above)`);
}

export const catalogueCommands: CliModule = (program, context) => {
  program.command('seed')
    .description('load the demo catalogue (appends only what is missing)')
    .action(async () => {
      const service = await context.service();
      await withProgress(context, 'demo catalogue', (onProgress) => seedDemo(service, onProgress));
    });

  program.command('import')
    .description('bring the catalogue to the state of a catalogue file (JSON, the demo catalogue format); adds and changes, never removes what the file lacks')
    .argument('[file]', 'catalogue file')
    .option('--check', 'only check the file: every problem, each with its path in the file; opens no store')
    .option('--schema', 'print the JSON Schema of a catalogue file and exit')
    .action(async (file: string | undefined, options: { check?: boolean; schema?: boolean }) => {
      if (options.schema) return context.out(JSON.stringify(catalogueFileJsonSchema(), null, 2));
      if (file === undefined) throw new CatalogueReadError('(none)', 'name a catalogue file, or --schema');
      const catalogue = await readJsonFile(file);
      if (options.check) {
        const valid = await checkedCatalogue(file, catalogue, context.out);
        return context.out(`${file}: a valid catalogue file (${valid.collections.length} collections, ${valid.watches.length} watches, `
          + `${valid.configurators.length} configurators, ${valid.serials.length} serials)`);
      }
      const valid = await checkedCatalogue(file, catalogue, context.note);
      const service = await context.service();
      await withProgress(context, file, (onProgress) => importCatalogue(service, valid, onProgress, { actor: context.actor() }));
    });
};
