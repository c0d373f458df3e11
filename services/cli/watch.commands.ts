/** `watchcat watch create | example | edit | set-price | set-stock | set-customizable | withdraw`. */
import { Argument } from 'commander';
import { STOCK_STATUSES, type StockStatus } from '../../shared/events/index.ts';
import { centsToEuros, eurosToCents } from '../../shared/money/cents.ts';
import { NewWatch, WatchEdit } from '../catalogue/watch-entry.ts';
import { WATCH_EXAMPLE } from '../catalogue/watch-example.ts';
import { readJsonFile } from './catalogue.commands.ts';
import type { CommandResult } from '../write/command-service.ts';
import type { CliModule } from './cli-module.ts';
import { euros, identifier } from './arguments.ts';
import { checkedWatch, watchFlagOptions, withFlags } from './watch-document.ts';

const outcome = (result: CommandResult, done: string, unchanged: string) =>
  result.appended > 0 ? `${done} at position ${result.position}` : unchanged;

export const watchCommands: CliModule = (program, context) => {
  const watch = program.command('watch').description('the catalogue: publication, texts, prices, stock and withdrawals of watches');

  const create = watch.command('create')
    .description('publish one watch: a JSON file (`watch example` prints one to start from; a watch of the catalogue file with '
      + 'price_eur instead of price_cents), with flags for the fields typed most, each laid over the file\'s')
    .argument('[file]', 'the watch, as JSON (the same as --file)')
    .option('--file <file>', 'the watch, as JSON');
  for (const option of watchFlagOptions()) create.addOption(option);
  create.action(async (positional: string | undefined, flags: Record<string, unknown> & { file?: string }) => {
    if (positional !== undefined && flags.file !== undefined) create.error('error: give the watch file once, as an argument or with --file');
    const file = flags.file ?? positional;
    const base = file === undefined ? {} : await readJsonFile(file, 'watch file');
    const { price_eur, ...fields } = await checkedWatch<NewWatch>(NewWatch, withFlags(base, flags), context, {
      what: 'watch not published', source: file, withFlagHints: true,
    });
    const price_cents = eurosToCents(price_eur);
    const result = await (await context.service()).publishWatch({ ...fields, price_cents });
    context.out(`watch ${fields.reference} published at ${centsToEuros(price_cents)} EUR, at position ${result.position}`);
  });

  watch.command('example')
    .description('print a complete watch file, which `watch create --file` publishes as it is into the demo catalogue: change what differs')
    .action(() => context.out(JSON.stringify(WATCH_EXAMPLE, null, 2)));

  watch.command('edit')
    .description('change texts and details of a watch (name, descriptions, specifications, images, features, seo, manufacture, customizable) from a JSON file holding only those to change')
    .argument('<ref>', 'reference of the watch (upper-cased)', identifier)
    .argument('<file>', 'the fields to change, as JSON')
    .action(async (reference: string, file: string) => {
      const candidate = await readJsonFile(file, 'watch file');
      const changes = await checkedWatch<WatchEdit>(WatchEdit, candidate, context, { what: `watch ${reference} not revised`, source: file });
      const result = await (await context.service()).reviseWatch({ ...changes, reference });
      context.out(outcome(result, `watch ${reference} revised`, `watch ${reference} already reads so; nothing changed`));
    });

  watch.command('set-price')
    .description('set the catalogue price of a watch, in euros')
    .argument('<ref>', 'reference of the watch (upper-cased)', identifier)
    .argument('<eur>', 'price in euros, e.g. 12500 or 12500.50', euros)
    .action(async (reference: string, cents: number) => {
      const result = await (await context.service()).changeWatchPrice(reference, cents);
      const price = `${centsToEuros(cents)} EUR`;
      context.out(outcome(result, `price of ${reference} set to ${price}`, `price of ${reference} is already ${price}; nothing changed`));
    });

  watch.command('set-stock')
    .description('set the stock status of a watch')
    .argument('<ref>', 'reference of the watch (upper-cased)', identifier)
    .addArgument(new Argument('<status>', 'stock status').choices(STOCK_STATUSES))
    .action(async (reference: string, status: StockStatus) => {
      const result = await (await context.service()).changeWatchStock(reference, status);
      context.out(outcome(result, `stock of ${reference} set to ${status}`, `stock of ${reference} is already ${status}; nothing changed`));
    });

  watch.command('set-customizable')
    .description('mark a watch customizable (a model of its collection\'s configurator) or not')
    .argument('<ref>', 'reference of the watch (upper-cased)', identifier)
    .addArgument(new Argument('<customizable>', 'yes or no').choices(['yes', 'no']))
    .action(async (reference: string, answer: 'yes' | 'no') => {
      const customizable = answer === 'yes';
      const result = await (await context.service()).reviseWatch({ reference, customizable });
      const state = customizable ? 'customizable' : 'not customizable';
      context.out(outcome(result, `watch ${reference} marked ${state}`, `watch ${reference} is already ${state}; nothing changed`));
    });

  watch.command('withdraw')
    .description('withdraw a watch from the catalogue, for good')
    .argument('<ref>', 'reference of the watch (upper-cased)', identifier)
    .action(async (reference: string) => {
      const result = await (await context.service()).withdrawWatch(reference);
      context.out(`watch ${reference} withdrawn at position ${result.position}`);
    });
};
