/** Entry of the `watchcat` back-office CLI (bin/watchcat.js); the program itself is in program.ts. */
import { run } from './program.ts';

// `watchcat history | head` closes stdout early: that is the reader's choice, not a failure.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

process.exitCode = await run(process.argv);
