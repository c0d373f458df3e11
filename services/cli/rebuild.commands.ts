/**
 * `watchcat rebuild [--projection NAME]...`: rebuilds read models from the whole history into fresh generations
 * and switches to them at once (see rebuild.ts). The read store is the configured one; an in-memory store
 * lives and dies with each process, so without MONGODB_URL there is nothing a separate command could rebuild.
 */
import type { Command } from 'commander';
import { createReadStore } from '../../shared/adapters/read-store.factory.ts';
import type { Config } from '../../shared/config/config.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { rebuildProgress } from './rebuild-progress.ts';
import { PROJECTION_NAMES, selectProjections } from '../../shared/read-model/projections/index.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';

/** What the command needs from the CLI (the CLI's context has all of it). */
export interface RebuildCommandDeps {
  config(): Config;
  store(options: { existing: true }): Promise<EventStore>;
  /** Command output (stdout). */
  out(line: string): void;
  /** Where the progress goes; stderr by default. */
  progressStream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** The read store to rebuild; the configured MongoDB store by default. */
  openReadStore?: (config: Config) => Promise<ReadStore>;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export function registerRebuildCommand(program: Command, deps: RebuildCommandDeps): Command {
  return program
    .command('rebuild')
    .description('rebuild the read models from the whole event history, then switch readers to them at once')
    .option('--projection <name>', `rebuild only this projection (repeatable; one of ${PROJECTION_NAMES.join(', ')})`, collect, [])
    .action(async (options: { projection: string[] }) => {
      const projections = selectProjections(options.projection);
      const config = deps.config();
      if (!deps.openReadStore && !config.MONGODB_URL) {
        throw new Error('nothing to rebuild: without MONGODB_URL the read store is in memory, and the service rebuilds it at every start');
      }
      const readStore = await (deps.openReadStore ?? createReadStore)(config);
      const progress = rebuildProgress(deps.progressStream);
      let result;
      try {
        result = await rebuild({ eventStore: await deps.store({ existing: true }), readStore, projections, onProgress: (p) => progress.onProgress(p) });
      } finally {
        progress.stop();
        await readStore.close();
      }
      const rate = result.seconds > 0 ? Math.round(result.events / result.seconds) : result.events;
      deps.out(`rebuilt ${result.projections.join(', ')} up to position ${result.position} (${result.events} events in ${result.seconds.toFixed(1)} s, ${rate} events/s)`);
    });
}
