/**
 * Rules of a watch: published once, into a defined collection, with a positive price and every text in both
 * languages; a withdrawn watch takes no further change; repeating the current price or stock emits nothing.
 */
import { assertNever, type LocalizedText, type WatchPublished, type WatchRevised } from '../../../shared/events/index.ts';
import type { CollectionState } from '../collection/collection.state.ts';
import { badPrice } from '../domain/amounts.ts';
import { changedFields } from '../domain/changes.ts';
import type { Decider, Decision } from '../domain/decider.ts';
import { conflict, unknown } from '../domain/domain-error.ts';
import { firstBlankText } from '../domain/texts.ts';
import type { WatchCommand } from './watch.commands.ts';
import { evolveWatch, initialWatchState, type WatchEvent, type WatchState } from './watch.state.ts';

/** The watch's collection: loaded for a publication only, which is the one command that needs it. */
export type WatchContext = { collection?: CollectionState };

function decideWatch(command: WatchCommand, state: WatchState, context: WatchContext): Decision<WatchEvent> {
  if (command.type === 'PublishWatch') return publish(command.watch, state, context);
  const reference = command.type === 'ReviseWatch' ? command.revision.reference : command.reference;
  if (state.status === 'unpublished') return unknown('watch', reference);
  if (state.status === 'withdrawn') return conflict(`watch ${reference} is withdrawn and takes no further changes`);
  const { watch } = state;
  switch (command.type) {
    case 'ReviseWatch': {
      const problem = firstBlankText(watchTexts(command.revision));
      if (problem) return problem;
      const changes = changedFields(command.revision, 'reference', watch);
      return Object.keys(changes).length === 0 ? [] : [{ type: 'WatchRevised', data: { reference, ...changes } }];
    }
    case 'ChangeWatchPrice': {
      const problem = badPrice('price', command.price_cents);
      if (problem) return problem;
      if (command.price_cents === watch.price_cents) return [];
      return [{
        type: 'WatchPriceChanged',
        data: { reference, price_cents: command.price_cents, previous_price_cents: watch.price_cents },
      }];
    }
    case 'ChangeWatchStock':
      if (command.stock_status === watch.stock_status) return [];
      return [{ type: 'WatchStockChanged', data: { reference, stock_status: command.stock_status } }];
    case 'WithdrawWatch':
      return [{ type: 'WatchWithdrawn', data: { reference } }];
    default:
      return assertNever(command);
  }
}

function publish(watch: WatchPublished, state: WatchState, context: WatchContext): Decision<WatchEvent> {
  if (state.status !== 'unpublished') return conflict(`watch ${watch.reference} is already published`);
  if (!context.collection?.defined) return unknown('collection', watch.collection);
  const problem = badPrice('price', watch.price_cents) ?? firstBlankText(watchTexts(watch));
  if (problem) return problem;
  return [{ type: 'WatchPublished', data: watch }];
}

/** The texts of a watch that may not be blank, by their path in the watch (the catalogue file's check asks too). */
export function watchTexts(watch: WatchPublished | WatchRevised): Record<string, LocalizedText | undefined> {
  return {
    name: watch.name,
    short_description: watch.short_description,
    description: watch.description,
    'seo.title': watch.seo?.title,
    'seo.description': watch.seo?.description,
    'manufacture.origin': watch.manufacture?.origin,
  };
}

export const watchDecider: Decider<WatchCommand, WatchState, WatchEvent, WatchContext> = {
  initialState: initialWatchState,
  evolve: evolveWatch,
  decide: decideWatch,
};
