/** A group of CLI commands: it adds its commands to the program. Register a new one in commands.ts. */
import type { Command } from 'commander';
import type { CliContext } from './cli-context.ts';

export type CliModule = (program: Command, context: CliContext) => void;
