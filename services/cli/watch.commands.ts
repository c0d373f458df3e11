/** `watchcat watch set-price | set-stock | set-customizable | withdraw`. */
import { Argument } from 'commander';
import { STOCK_STATUSES, type StockStatus } from '../../shared/events/index.ts';
import { centsToEuros } from '../../shared/money/cents.ts';
import type { CommandResult } from '../command-service.ts';
import type { CliModule } from './cli-module.ts';
import { euros, identifier } from './arguments.ts';

const outcome = (result: CommandResult, done: string, unchanged: string) =>
  result.appended > 0 ? `${done} at position ${result.position}` : unchanged;

export const watchCommands: CliModule = (program, context) => {
  const watch = program.command('watch').description('the catalogue: prices, stock and withdrawals of watches');

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
