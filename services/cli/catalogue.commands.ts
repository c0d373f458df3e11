/** `watchcat seed` and `watchcat import FILE`: bring the store to a catalogue's state, idempotently. */
import { readFile } from 'node:fs/promises';
import { importCatalogue } from '../import/import-catalogue.ts';
import type { ImportReport } from '../import/import-progress.ts';
import { seedDemo } from '../import/seed-demo.ts';
import type { CliContext } from './cli-context.ts';
import type { CliModule } from './cli-module.ts';
import { importProgress } from './import-progress-bar.ts';

export class CatalogueReadError extends Error {
  constructor(file: string, reason: string) {
    super(`cannot read catalogue file ${file}: ${reason}`);
    this.name = 'CatalogueReadError';
  }
}

async function readCatalogue(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CatalogueReadError(file, (error as NodeJS.ErrnoException).code ?? String(error));
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CatalogueReadError(file, (error as Error).message);
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

export const catalogueCommands: CliModule = (program, context) => {
  program.command('seed')
    .description('load the demo catalogue (appends only what is missing)')
    .action(async () => {
      const service = await context.service();
      await withProgress(context, 'demo catalogue', (onProgress) => seedDemo(service, onProgress));
    });

  program.command('import')
    .description('bring the catalogue to the state of a catalogue file (JSON, the demo catalogue format)')
    .argument('<file>', 'catalogue file')
    .action(async (file: string) => {
      const catalogue = await readCatalogue(file);
      const service = await context.service();
      await withProgress(context, file, (onProgress) => importCatalogue(service, catalogue, onProgress, { actor: 'watchcat-import' }));
    });
};
