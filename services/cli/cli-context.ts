/**
 * What every CLI command module gets: the command service and event store, opened on first use from the
 * configuration (so `--help` needs no store), and where to write. `close()` releases the store at the end.
 */
import { openEventStore } from '../../shared/adapters/event-store.factory.ts';
import { loadConfig, type Config } from '../../shared/config/config.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { createCommandService, type CommandService } from '../command-service.ts';

export interface CliContext {
  config(): Config;
  store(): Promise<EventStore>;
  service(): Promise<CommandService>;
  /** Command output, on stdout. */
  out(line: string): void;
  /** Notes and progress, on stderr. */
  note(line: string): void;
  close(): Promise<void>;
}

/** Who the events name as their actor when the CLI sends a command. */
const CLI_ACTOR = `watchcat-cli:${process.env.USER ?? 'unknown'}`;

export function createCliContext(env: NodeJS.ProcessEnv = process.env): CliContext {
  let config: Config | undefined;
  let store: Promise<EventStore> | undefined;
  const context: CliContext = {
    config: () => (config ??= loadConfig(env)),
    store: () => (store ??= openEventStore(context.config())),
    service: async () => createCommandService(await context.store(), { actor: CLI_ACTOR }),
    out: (line) => process.stdout.write(`${line}\n`),
    note: (line) => process.stderr.write(`${line}\n`),
    close: async () => {
      if (store) await (await store).close();
    },
  };
  return context;
}
