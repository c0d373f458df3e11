#!/usr/bin/env node
// The CLI runs the compiled JavaScript that `npm ci` builds into dist/ (npm's `prepare` step): plain node, no loader.
import { existsSync } from 'node:fs';

const program = new URL('../dist/services/cli/watchcat.js', import.meta.url);
if (!existsSync(program)) {
  process.stderr.write('watchcat: the compiled program is missing: run `npm run build` (`npm ci` builds it)\n');
  process.exit(1);
}
await import(program.href);
