/**
 * `watchcat projections list` and `watchcat projections resume NAME`: what every projector process sees of the
 * projections (live generation, position, parked or running, and where and why a parked one stopped), and the
 * operator's way to let a parked projection run again once the fault is fixed. The read store is the configured
 * one; an in-memory store lives and dies with each process, so without MONGODB_URL there is nothing to show.
 */
import type { Command } from 'commander';
import { createReadStore } from '../../shared/adapters/read-store.factory.ts';
import type { Config } from '../../shared/config/config.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { PROJECTION_NAMES, selectProjections } from '../../shared/read-model/projections/index.ts';
import { resumeProjection } from '../../shared/read-model/projections/parking.ts';
import { readProjectionStates } from '../../shared/read-model/projections/projection-states.ts';
import { liveCheckpointOf, readControlDocs } from '../../shared/read-model/projections/control-docs.ts';
import { historyLost } from '../../shared/read-model/projections/history-check.ts';

/** A refusal the operator can act on (exit code 1, one line). */
export class ProjectionsCommandError extends Error {}

interface ProjectionsCommandDeps {
  config(): Config;
  /** Command output (stdout). */
  out(line: string): void;
  /** The read store; the configured MongoDB store by default. */
  openReadStore?: (config: Config) => Promise<ReadStore>;
  /** The configured event store, which must still hold the events a resumed checkpoint counts. */
  store(): Promise<Pick<EventStore, 'headPosition' | 'readAll'>>;
}

async function withReadStore<T>(deps: ProjectionsCommandDeps, work: (store: ReadStore) => Promise<T>): Promise<T> {
  const config = deps.config();
  if (!deps.openReadStore && !config.MONGODB_URL) {
    throw new ProjectionsCommandError('no shared read store: without MONGODB_URL each process keeps its read models in memory (see its status and /readyz)');
  }
  const store = await (deps.openReadStore ?? createReadStore)(config);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

export function registerProjectionsCommands(program: Command, deps: ProjectionsCommandDeps): Command {
  const group = program.command('projections').description('show the projections and resume a parked one');
  group
    .command('list')
    .description('each projection: its live generation, the position applied, running or parked (on which event, and why)')
    .action(async () => {
      const states = new Map((await withReadStore(deps, readProjectionStates)).map((state) => [state.name, state]));
      for (const name of PROJECTION_NAMES) {
        const state = states.get(name);
        if (!state) deps.out(`${name}\tnot started`);
        else if (state.parked) deps.out(`${name}\tgeneration ${state.generation}\tposition ${state.position}\tparked at event ${state.parked.position}: ${state.parked.reason}`);
        else deps.out(`${name}\tgeneration ${state.generation}\tposition ${state.position}\trunning`);
      }
    });
  group
    .command('resume')
    .argument('<name>', `the parked projection (one of ${PROJECTION_NAMES.join(', ')})`)
    .description('let a parked projection run again from where it stopped, once the fault that parked it is fixed')
    .action(async (name: string) => {
      const [projection] = selectProjections([name]);
      const resumed = await withReadStore(deps, async (store) => {
        // A checkpoint the history no longer holds (an event store put back to an older copy, appended to or not)
        // counts positions the history hands out again: running, every API process would take it as holding the
        // events there (an `X-Min-Position` met, docs/api.md "Stores put back from a copy") until its projector parked
        // it again. Judged as the projector judges it.
        const { checkpoint } = liveCheckpointOf(await readControlDocs(store), projection!);
        const lost = checkpoint?.status === 'parked' ? await historyLost(await deps.store(), checkpoint, true) : undefined;
        if (lost) throw new ProjectionsCommandError(`${name}: ${lost.reason}, or put back the event store that holds its events`);
        return resumeProjection(store, projection!);
      });
      if (!resumed) throw new ProjectionsCommandError(`projection ${name} is not parked`);
      deps.out(`resumed ${name}: the projectors take it up at their next signal`);
    });
  return group;
}
