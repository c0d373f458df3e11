import { expect } from 'chai';
import { Command } from 'commander';
import { Writable } from 'node:stream';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { loadConfig } from '../../shared/config/config.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { registerRebuildCommand, type RebuildCommandDeps } from '../../services/cli/rebuild.commands.ts';
import { appendAll, catalogueHistory } from './support/history.ts';

function capture(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({ write(chunk, _encoding, done) { lines.push(...String(chunk).split('\n').filter(Boolean)); done(); } });
  return { stream, lines };
}

describe('watchcat rebuild command', () => {
  let eventStore: EventStore;
  let readStore: ReadStore;
  let head: number;

  beforeEach(async () => {
    eventStore = openSqliteEventStore(':memory:');
    readStore = createMemoryReadStore();
    head = await appendAll(eventStore, catalogueHistory(10));
  });
  afterEach(() => eventStore.close());

  function run(args: string[], deps: Partial<RebuildCommandDeps> = {}) {
    const out: string[] = [];
    const progress = capture();
    const program = new Command('watchcat').exitOverride();
    registerRebuildCommand(program, {
      config: () => loadConfig({}), store: async () => eventStore, out: (line) => out.push(line),
      // The command closes the store it opened; this one stays readable for the assertions.
      progressStream: progress.stream, openReadStore: async () => ({ ...readStore, close: async () => {} }), ...deps,
    });
    return { out, progress: progress.lines, done: program.parseAsync(['node', 'watchcat', 'rebuild', ...args]) };
  }

  it('rebuilds the projection asked for, shows progress as plain lines off a terminal and reports what it did', async () => {
    const { out, progress, done } = run(['--projection', 'serials']);
    await done;
    expect(out).to.have.length(1);
    expect(out[0]).to.match(new RegExp(`^rebuilt serials up to position ${head} \\(${head} events in [0-9.]+ s, [0-9]+ events/s\\)$`));
    expect(progress.at(-1)).to.match(new RegExp(`^rebuild 100% \\(position ${head}/${head}, [0-9]+ events/s\\)$`));
    expect(await readStore.count('serials', {})).to.equal(10);
    expect(await readStore.count('watches', {})).to.equal(0);
  });

  it('refuses with a clear message when the read store would be an in-memory one of its own', async () => {
    const { done } = run([], { openReadStore: undefined });
    let failure: unknown;
    await done.catch((error: unknown) => { failure = error; });
    expect(String(failure)).to.match(/nothing to rebuild: without MONGODB_URL/);
  });

  it('refuses an unknown projection naming the known ones', async () => {
    const { done } = run(['--projection', 'orders']);
    let failure: unknown;
    await done.catch((error: unknown) => { failure = error; });
    expect(String(failure)).to.match(/unknown projection orders \(known: watches, collections, configurators, serials, transparency-log\)/);
  });
});
