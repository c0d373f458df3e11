/** Commands of the `watch-{REFERENCE}` aggregate. Prices are integer cents. */
import type { StockStatus, WatchPublished, WatchRevised } from '../../../shared/events/index.ts';

export type PublishWatch = { type: 'PublishWatch'; watch: WatchPublished };
/** Names the descriptive fields to change; fields equal to the current ones are left out of the event. */
export type ReviseWatch = { type: 'ReviseWatch'; revision: WatchRevised };
export type ChangeWatchPrice = { type: 'ChangeWatchPrice'; reference: string; price_cents: number };
export type ChangeWatchStock = { type: 'ChangeWatchStock'; reference: string; stock_status: StockStatus };
export type WithdrawWatch = { type: 'WithdrawWatch'; reference: string };

export type WatchCommand = PublishWatch | ReviseWatch | ChangeWatchPrice | ChangeWatchStock | WithdrawWatch;
