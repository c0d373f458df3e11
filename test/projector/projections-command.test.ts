import { expect } from 'chai';
import { Command } from 'commander';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { loadConfig } from '../../shared/config/config.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { ProjectionLease } from '../../shared/read-model/projections/lease.ts';
import { readProjectionStates } from '../../shared/read-model/projections/projection-states.ts';
import { ProjectionsCommandError, registerProjectionsCommands } from '../../services/cli/projections.commands.ts';

describe('watchcat projections commands', () => {
  let readStore: ReadStore;
  /** The event store's last event: past every checkpoint unless a test puts the history back. */
  let head: number;
  beforeEach(async () => {
    head = 100;
    readStore = createMemoryReadStore();
    const watches = (await ProjectionLease.acquire(readStore, { name: 'watches', collection: 'watches' }, 'test'))!;
    await watches.saveCheckpoint(12);
    await watches.release();
    const serials = (await ProjectionLease.acquire(readStore, { name: 'serials', collection: 'serials' }, 'test'))!;
    await serials.saveCheckpoint(9);
    await serials.park(10, 'projection serials cannot apply SerialRegistered at position 10: bad');
    await serials.release();
  });

  async function run(args: string[], openReadStore: boolean = true) {
    const out: string[] = [];
    const program = new Command('watchcat').exitOverride();
    registerProjectionsCommands(program, {
      config: () => loadConfig({}), out: (line) => out.push(line), store: async () => ({ headPosition: async () => head, readAll: async () => [] }),
      ...(openReadStore ? { openReadStore: async () => ({ ...readStore, close: async () => {} }) } : {}),
    });
    const failure = await program.parseAsync(['node', 'watchcat', 'projections', ...args]).then(() => undefined, (error: unknown) => error);
    return { out, failure };
  }

  it('list names each projection with its generation and position, and a parked one with its event and reason', async () => {
    const { out, failure } = await run(['list']);
    expect(failure).to.equal(undefined);
    expect(out).to.deep.equal([
      'watches\tgeneration 1\tposition 12\trunning',
      'collections\tnot started',
      'configurators\tnot started',
      'serials\tgeneration 1\tposition 9\tparked at event 10: projection serials cannot apply SerialRegistered at position 10: bad',
      'transparency-log\tnot started',
    ]);
  });

  it('resume lets a parked projection run again, and refuses one that is not parked', async () => {
    expect((await run(['resume', 'serials'])).out).to.deep.equal(['resumed serials: the projectors take it up at their next signal']);
    expect((await readProjectionStates(readStore)).find((s) => s.name === 'serials')).to.include({ status: 'running', position: 9, parked: null });
    const again = await run(['resume', 'serials']);
    expect(again.failure).to.be.instanceOf(ProjectionsCommandError);
    expect(String(again.failure)).to.match(/projection serials is not parked/);
  });

  it('resume refuses a projection whose checkpoint stands past the event store\'s last event, and leaves it parked', async () => {
    // An event store put back to an older copy: the checkpoint counts positions the history hands out again, so a
    // resumed projection would be taken as holding events appended since, until its projector parks it again.
    const watches = (await ProjectionLease.acquire(readStore, { name: 'watches', collection: 'watches' }, 'test'))!;
    await watches.park(12, 'the event store\'s last event is at position 8, before this projection\'s checkpoint at 12');
    await watches.release();
    head = 8;
    const refused = await run(['resume', 'watches']);
    expect(refused.failure).to.be.instanceOf(ProjectionsCommandError);
    expect(String(refused.failure)).to.match(/watches: the event store's last event is at position 8, before this projection's checkpoint at 12: .*`watchcat rebuild`\), or put back the event store that holds its events$/);
    expect((await readProjectionStates(readStore)).find((s) => s.name === 'watches')).to.include({ status: 'parked', position: 12 });
    head = 12;
    expect((await run(['resume', 'watches'])).out, 'the history reaches it again').to.deep.equal(['resumed watches: the projectors take it up at their next signal']);
  });

  it('refuses without a shared read store, and refuses an unknown projection', async () => {
    expect((await run(['list'], false)).failure).to.be.instanceOf(ProjectionsCommandError);
    expect(String((await run(['resume', 'nope'])).failure)).to.match(/unknown projection nope/);
  });
});
