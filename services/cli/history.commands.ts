/** `watchcat history [STREAM] [--type TYPE] [--since TIME] [--until TIME] [--correlation ID] [--json]`: the event history, whole or of one stream. */
import { Option } from 'commander';
import { EVENT_TYPES, type EventType } from '../../shared/events/index.ts';
import type { EventStore, StoredEvent } from '../../shared/ports/event-store.ts';
import { addHistoryFilterOptions, historyFilter, type HistoryFilterOptions } from '../audit/history-filter.ts';
import type { CliModule } from './cli-module.ts';
import { jsonLine, tableRows } from './history-format.ts';
import { canonicalId } from '../../shared/events/index.ts';

const BATCH = 1_000;

/** `watch-` and `serial-` streams are named by upper-case identifiers; accept them typed in any case. */
function streamName(stream: string): string {
  const match = /^(watch|serial)-(.+)$/i.exec(stream.trim());
  return match ? `${match[1]!.toLowerCase()}-${canonicalId(match[2]!)}` : stream.trim();
}

async function* history(store: EventStore, stream: string | undefined): AsyncGenerator<StoredEvent> {
  if (stream) {
    yield* await store.readStream(stream);
    return;
  }
  for (let after = 0; ;) {
    const batch = await store.readAll({ after, limit: BATCH });
    yield* batch;
    const last = batch.at(-1);
    if (!last || batch.length < BATCH) return;
    after = last.position;
  }
}

export const historyCommands: CliModule = (program, context) => {
  addHistoryFilterOptions(program.command('history'))
    .description('show the event history, of the whole store or of one stream (e.g. serial-AUR-2021-000042)')
    .argument('[stream]', 'stream name: collection-CODE, watch-REF, configurator-CODE or serial-SERIAL')
    .addOption(new Option('--type <type>', 'only events of this type').choices(EVENT_TYPES))
    .option('--json', 'one JSON object per line instead of a table')
    .action(async (stream: string | undefined, options: { type?: EventType; json?: boolean } & HistoryFilterOptions) => {
      const store = await context.store({ existing: true });
      const keep = historyFilter(options);
      const events: StoredEvent[] = [];
      for await (const event of history(store, stream === undefined ? undefined : streamName(stream))) {
        if ((options.type && event.type !== options.type) || !keep(event)) continue;
        if (options.json) context.out(jsonLine(event));
        else events.push(event);
      }
      if (options.json) return;
      if (events.length === 0) context.note('no events');
      else for (const row of tableRows(events)) context.out(row);
    });
};
