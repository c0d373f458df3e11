/**
 * `watchcat state-at (TIMESTAMP|POSITION) [--lang en|fr] [--what ...] [--reference REF] [--serial SERIAL]` and
 * `watchcat price-at TIMESTAMP FILE.json`: what the public API would have answered at a point in the past, as the
 * same JSON, under `as_of` (the position and moment it reflects). A point past the history is refused, not clamped.
 */
import { readFile } from 'node:fs/promises';
import { Option } from 'commander';
import { LANGUAGES, type Language } from '../../shared/events/common.ts';
import type { CliContext } from '../cli/cli-context.ts';
import type { CliModule } from '../cli/cli-module.ts';
import { rebuildProgress, stderrProgress } from './audit-progress.ts';
import { AuditError } from './audit-sources.ts';
import type { Cut } from './history-cut.ts';
import { priceAnswer } from './public-answers.ts';
import { checkCut, envAt, parseCut, projectAt, stateAnswers, STATE_SECTIONS, type ProjectedState, type StateSection } from './state-at.ts';
import { identifier } from '../cli/arguments.ts';

async function projected(context: CliContext, cut: Cut, label: string): Promise<ProjectedState> {
  const store = await context.store({ existing: true });
  await checkCut(cut, store);
  const progress = rebuildProgress(label, stderrProgress(context.note));
  try {
    return await projectAt(store, cut, progress.onProgress);
  } finally {
    progress.stop();
  }
}

async function readPriceRequest(file: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as unknown;
  } catch (error) {
    throw new AuditError(`cannot read price request ${file}: ${(error as Error).message}`);
  }
}

const langOption = () => new Option('--lang <lang>', 'language of the answers').choices(LANGUAGES).default('en');
const json = (value: unknown) => JSON.stringify(value, null, 2);

export const stateAtCommands: CliModule = (program, context) => {
  program.command('state-at')
    .description('project the history up to a position, or up to the first event stamped after a moment, and print what the public API would have answered then')
    .argument('<point>', 'ISO 8601 timestamp (e.g. 2025-03-01T12:00:00Z) or a position (digits)', parseCut)
    .addOption(langOption())
    .addOption(new Option('--what <section>', 'which answers').choices([...STATE_SECTIONS, 'all']).default('all'))
    .option('--reference <ref>', 'the catalogue section is this watch\'s detail answer (its 404 if it was not published then)', identifier)
    .option('--serial <serial>', 'the serials section is this serial\'s verification (NOT_FOUND if it was not registered then)', identifier)
    .action(async (cut: Cut, options: { lang: Language; what: StateSection | 'all'; reference?: string; serial?: string }) => {
      const state = await projected(context, cut, 'state-at');
      try {
        const sections = options.what === 'all' ? STATE_SECTIONS : [options.what];
        const filters = { ...(options.reference ? { reference: options.reference } : {}), ...(options.serial ? { serial: options.serial } : {}) };
        context.out(json(await stateAnswers(state, context.config(), options.lang, sections, filters)));
      } finally {
        await state.readStore.close();
      }
    });

  program.command('price-at')
    .description('price a PriceRequest (JSON file, the body of POST /api/public/configurator/price) as the API would have at a moment')
    .argument('<point>', 'ISO 8601 timestamp or a position', parseCut)
    .argument('<file>', 'the price request, JSON')
    .addOption(langOption())
    .action(async (cut: Cut, file: string, options: { lang: Language }) => {
      const body = await readPriceRequest(file);
      const state = await projected(context, cut, 'price-at');
      try {
        const answer = await priceAnswer(envAt(state, context.config()), options.lang, body);
        // Which point of the history was priced, as state-at says it.
        context.out(json({ as_of: state.asOf, status: answer.status, answer: answer.body }));
        if (answer.status !== 200) throw new AuditError(`the API would have refused this request then (status ${answer.status})`);
      } finally {
        await state.readStore.close();
      }
    });
};
