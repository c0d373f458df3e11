/** Commands of the `watch-{REFERENCE}` aggregate. Prices are integer cents. */
import type { StockStatus, WatchPublished, WatchRevised } from '../../../shared/events/index.ts';

type PublishWatch = { type: 'PublishWatch'; watch: WatchPublished };
/** Names the descriptive fields to change; fields equal to the current ones are left out of the event. */
type ReviseWatch = { type: 'ReviseWatch'; revision: WatchRevised };
type ChangeWatchPrice = { type: 'ChangeWatchPrice'; reference: string; price_cents: number };
type ChangeWatchStock = { type: 'ChangeWatchStock'; reference: string; stock_status: StockStatus };
type WithdrawWatch = { type: 'WithdrawWatch'; reference: string };

export type WatchCommand = PublishWatch | ReviseWatch | ChangeWatchPrice | ChangeWatchStock | WithdrawWatch;
