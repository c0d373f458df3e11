/** `watchcat watch create | edit | set-price | set-stock | set-customizable | withdraw`. */
import { Argument } from 'commander';
import { STOCK_STATUSES, type StockStatus } from '../../shared/events/index.ts';
import { centsToEuros, eurosToCents } from '../../shared/money/cents.ts';
import { NewWatch, WatchEdit } from '../catalogue/watch-entry.ts';
import { shapeProblems } from '../import/catalogue-validation.ts';
import { CatalogueReadError, readJsonFile } from './catalogue.commands.ts';
import type { CliContext } from './cli-context.ts';
import type { CommandResult } from '../command-service.ts';
import type { CliModule } from './cli-module.ts';
import { euros, identifier } from './arguments.ts';

const outcome = (result: CommandResult, done: string, unchanged: string) =>
  result.appended > 0 ? `${done} at position ${result.position}` : unchanged;

/** The watch file `file` as `schema` says, or a refusal after one note per problem, each with its path. */
async function readWatchFile<T>(context: CliContext, schema: object, file: string): Promise<T> {
  const candidate = await readJsonFile(file, 'watch file');
  const problems = shapeProblems(schema, candidate);
  if (problems.length === 0) return candidate as T;
  for (const problem of problems) context.note(`${file}: ${problem}`);
  throw new CatalogueReadError(file, `${problems.length} problem${problems.length === 1 ? '' : 's'} (listed above)`, 'watch file');
}

export const watchCommands: CliModule = (program, context) => {
  const watch = program.command('watch').description('the catalogue: publication, texts, prices, stock and withdrawals of watches');

  watch.command('create')
    .description('publish one watch, described in a JSON file: a watch of the catalogue file with price_eur instead of price_cents (see `import --schema`)')
    .argument('<file>', 'the watch, as JSON')
    .action(async (file: string) => {
      const { price_eur, ...fields } = await readWatchFile<NewWatch>(context, NewWatch, file);
      let price_cents: number;
      try {
        price_cents = eurosToCents(price_eur);
      } catch (error) {
        throw new CatalogueReadError(file, `price_eur: ${(error as Error).message}`, 'watch file');
      }
      const result = await (await context.service()).publishWatch({ ...fields, price_cents });
      context.out(`watch ${fields.reference} published at ${centsToEuros(price_cents)} EUR, at position ${result.position}`);
    });

  watch.command('edit')
    .description('change texts and details of a watch (name, descriptions, specifications, images, features, seo, manufacture, customizable) from a JSON file holding only those to change')
    .argument('<ref>', 'reference of the watch (upper-cased)', identifier)
    .argument('<file>', 'the fields to change, as JSON')
    .action(async (reference: string, file: string) => {
      const changes = await readWatchFile<WatchEdit>(context, WatchEdit, file);
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
