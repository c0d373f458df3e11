/**
 * The `watchcat` program: its command groups from the registry, and the mapping of failures to exit codes:
 * 0 done, 1 refused or failed (one line on stderr saying why), 2 usage error.
 */
import { Command, CommanderError } from 'commander';
import { CatalogueFileError } from '../import/catalogue-validation.ts';
import { DomainError } from '../write/domain/domain-error.ts';
import { createCliContext, NoStoreError, type CliContext } from './cli-context.ts';
import { CatalogueReadError } from './catalogue.commands.ts';
import { AuditError } from '../audit/audit-sources.ts';
import { ExportFormatError } from '../audit/export-format.ts';
import { CLI_MODULES } from './commands.ts';
import { ReceiptError } from './receipt.commands.ts';
import { ProjectionsCommandError } from './projections.commands.ts';
import { WatchDocumentError } from './watch-document.ts';
import { deploymentUrl } from '../../shared/public-base-url.ts';
import { seconds } from './arguments.ts';
import { NotServedError, waitUntilServed } from './served-wait.ts';
import { WitnessError } from '../witness/witness.ts';

/** `--wait` without a number of seconds. */
const DEFAULT_WAIT_SECONDS = 30;

const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

function buildProgram(context: CliContext): Command {
  const program = new Command('watchcat')
    .description('back-office commands of the watch catalogue: they append events to the configured event store')
    .option('--actor <name>', 'who the events name as having sent the command (default: WATCHCAT_ACTOR, else the OS user)')
    .option('--wait [seconds]', 'after the command, wait until the public API (PUBLIC_BASE_URL, else this host\'s PORT) serves '
      + 'the event store as the command left it, up to SECONDS (default 30)', seconds)
    // Inherited by every subcommand added below: parse errors are thrown to run() instead of exiting, and said where
    // the context writes its notes (a test keeps them).
    .exitOverride()
    .configureOutput({ writeErr: (text) => context.note(text.replace(/\n$/, '')) })
    .hook('preAction', (command) => context.actAs(command.opts<{ actor?: string }>().actor))
    .hook('postAction', async (command) => {
      const { wait } = command.opts<{ wait?: number | true }>();
      if (wait === undefined || !context.opened()) return;
      const base = deploymentUrl(context.config());
      const head = await (await context.store()).headPosition();
      const served = await waitUntilServed(base, head, (wait === true ? DEFAULT_WAIT_SECONDS : wait) * 1000);
      context.note(`watchcat: served by ${base} at position ${served}`);
    });
  for (const register of CLI_MODULES) register(program, context);
  return program;
}

/** The exit code of a failure, after writing its one-line message (commander has already written its own). */
function report(error: unknown, context: CliContext): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : EXIT_USAGE;
  const known = error instanceof DomainError || error instanceof CatalogueFileError || error instanceof CatalogueReadError
    || error instanceof AuditError || error instanceof ReceiptError || error instanceof ProjectionsCommandError || error instanceof NoStoreError
    || error instanceof WatchDocumentError || error instanceof NotServedError || error instanceof WitnessError || error instanceof ExportFormatError;
  const message = error instanceof Error ? error.message : String(error);
  context.note(`watchcat: ${known ? message : `failed: ${message}`}`);
  return EXIT_FAILURE;
}

export async function run(argv: string[], context: CliContext = createCliContext()): Promise<number> {
  try {
    await buildProgram(context).parseAsync(argv);
    return 0;
  } catch (error) {
    return report(error, context);
  } finally {
    await context.close();
  }
}
