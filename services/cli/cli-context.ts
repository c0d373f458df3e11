/**
 * What every CLI command module gets: the command service and event store, opened on first use from the
 * configuration (so `--help` needs no store), and where to write. `close()` releases the store at the end.
 */
import { userInfo } from 'node:os';
import { openEventStore } from '../../shared/adapters/event-store.factory.ts';
import { loadConfig, type Config } from '../../shared/config/config.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { createCommandService, type CommandService } from '../write/command-service.ts';
import { describeStore, storeExists } from './cli-store.ts';
import { withProjectDataDir } from '../../shared/config/project-data-dir.ts';

export interface CliContext {
  /** The configuration, `DATA_DIR` read from the project root (cli-store.ts). */
  config(): Config;
  /**
   * The event store, named on stderr when opened. `existing`: for a command that only reads, which refuses when there
   * is no store instead of creating an empty one.
   */
  store(options?: { existing?: boolean }): Promise<EventStore>;
  service(): Promise<CommandService>;
  /** Whether the command opened the event store (and so may have appended to it). */
  opened(): boolean;
  /** Who the events name as their actor: `--actor` when given (program.ts), else as `cliActor` finds. */
  actAs(name: string | undefined): void;
  /** The actor the events name: `watchcat-cli:NAME`. */
  actor(): string;
  /** Command output, on stdout. */
  out(line: string): void;
  /**
   * The stream `out` writes to, when it is one (the process's stdout; none where the lines are kept, in tests): for
   * output whose every line must arrive (`export`), written with back-pressure and refused when it fails.
   */
  readonly outStream?: NodeJS.WritableStream;
  /** Notes and progress, on stderr. */
  note(line: string): void;
  close(): Promise<void>;
}

/** A command that needs a store there is none of. */
export class NoStoreError extends Error {}

/** The person behind a CLI command: `WATCHCAT_ACTOR`, else the OS account, else `$USER`; `unknown` only when none says. */
function cliActor(env: NodeJS.ProcessEnv, account: () => string = () => userInfo().username): string {
  if (env['WATCHCAT_ACTOR']) return env['WATCHCAT_ACTOR'];
  try {
    const name = account();
    if (name) return name;
  } catch {
    // No account entry for this uid (a container's arbitrary user): the environment may still say.
  }
  return env['USER'] || env['LOGNAME'] || 'unknown';
}

/** Where a context writes: stdout and stderr unless told (tests keep the lines). */
type CliOutput = Pick<CliContext, 'out' | 'note' | 'outStream'>;

const STANDARD_OUTPUT: CliOutput = {
  out: (line) => process.stdout.write(`${line}\n`),
  note: (line) => process.stderr.write(`${line}\n`),
  outStream: process.stdout,
};

export function createCliContext(env: NodeJS.ProcessEnv = process.env, output: CliOutput = STANDARD_OUTPUT): CliContext {
  let config: Config | undefined;
  let store: Promise<EventStore> | undefined;
  let actor: string | undefined;
  const context: CliContext = {
    config: () => (config ??= withProjectDataDir(loadConfig(env))),
    store: (options = {}) => {
      if (store === undefined) {
        const configured = context.config();
        if (options.existing && !storeExists(configured)) {
          return Promise.reject(new NoStoreError(`no event store at ${describeStore(configured)} (check DATA_DIR, read from the project root)`));
        }
        context.note(`watchcat: event store ${describeStore(configured)}`);
        store = openEventStore(configured);
      }
      return store;
    },
    service: async () => createCommandService(await context.store(), { actor: context.actor() }),
    opened: () => store !== undefined,
    actAs: (name) => { actor = name; },
    actor: () => `watchcat-cli:${actor ?? cliActor(env)}`,
    out: output.out,
    note: output.note,
    ...(output.outStream ? { outStream: output.outStream } : {}),
    close: async () => {
      if (store) await (await store).close();
    },
  };
  return context;
}
