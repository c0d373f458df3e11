/**
 * The CLI is a composition root, so it may reach into projector/ for `rebuild`.
 * The registry of `watchcat` command groups. To add commands (rebuild, audit, state-at, export), write a module
 * exporting a `CliModule` and add it to this list.
 */
import { registerRebuildCommand } from './rebuild.commands.ts';
import { registerProjectionsCommands } from './projections.commands.ts';
import { auditCommands } from '../audit/audit.commands.ts';
import { stateAtCommands } from '../audit/state-at.commands.ts';
import { catalogueCommands } from './catalogue.commands.ts';
import type { CliModule } from './cli-module.ts';
import { historyCommands } from './history.commands.ts';
import { receiptCommands } from './receipt.commands.ts';
import { serialCommands } from './serial.commands.ts';
import { watchCommands } from './watch.commands.ts';
import { witnessCommand } from '../witness/witness.command.ts';

export const CLI_MODULES: readonly CliModule[] = [
  serialCommands, watchCommands, catalogueCommands, historyCommands,
  auditCommands,
  stateAtCommands,
  registerRebuildCommand,
  registerProjectionsCommands,
  receiptCommands,
  witnessCommand,
];
