/** State of a watch: never published, on the catalogue (with its current data), or withdrawn for good. */
import { assertNever, type EventOf, type WatchPublished } from '../../../shared/events/index.ts';

export type WatchEvent =
  | EventOf<'WatchPublished'> | EventOf<'WatchRevised'> | EventOf<'WatchPriceChanged'>
  | EventOf<'WatchStockChanged'> | EventOf<'WatchWithdrawn'>;

export type WatchState =
  | { status: 'unpublished' }
  | { status: 'published' | 'withdrawn'; watch: WatchPublished };

export function initialWatchState(): WatchState {
  return { status: 'unpublished' };
}

export function evolveWatch(state: WatchState, event: WatchEvent): WatchState {
  if (event.type === 'WatchPublished') return { status: 'published', watch: event.data };
  if (state.status === 'unpublished') return state;
  switch (event.type) {
    case 'WatchRevised': {
      const { reference: _reference, ...changes } = event.data;
      const set = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
      return { ...state, watch: { ...state.watch, ...set } };
    }
    case 'WatchPriceChanged':
      return { ...state, watch: { ...state.watch, price_cents: event.data.price_cents } };
    case 'WatchStockChanged':
      return { ...state, watch: { ...state.watch, stock_status: event.data.stock_status } };
    case 'WatchWithdrawn':
      return { ...state, status: 'withdrawn' };
    default:
      return assertNever(event);
  }
}
