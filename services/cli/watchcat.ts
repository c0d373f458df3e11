/** Entry of the `watchcat` back-office CLI (bin/watchcat.js); the program itself is in program.ts. */
import { run } from './program.ts';
import { stdoutMustArrive } from '../audit/line-file.ts';

// `watchcat history | head` closes stdout early: that is the reader's choice, not a failure. Not so for an export,
// whose every line must arrive: its own writes fail it, naming how far it got (services/audit/line-file.ts).
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (stdoutMustArrive()) return;
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

process.exitCode = await run(process.argv);
