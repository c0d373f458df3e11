/**
 * `npm run mutate`: StrykerJS on the modules that decide what a client sees (see stryker.config.mjs).
 *
 * Stryker's mocha runner cannot load Mocha 12 yet (it requires Mocha's cli files without their new `.cjs` extension;
 * stryker-js PR 6205), so Stryker lives in this folder with a Mocha 11 of its own, out of the project's packages.
 * The runner resolves `mocha` from its sandbox: the sandboxes get no `node_modules` link, and the folder that holds
 * them has a `node_modules` with only `mocha` in it, pointing here. Every other package a test imports resolves
 * from the project's own `node_modules`, as in `npm test`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const run = (command, args, cwd) => {
  const { status } = spawnSync(command, args, { cwd, stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
};

if (!existsSync(join(here, 'node_modules', '.bin', 'stryker'))) run('npm', ['ci', '--no-audit', '--no-fund'], here);

const sandboxModules = join(root, '.stryker-tmp', 'node_modules');
mkdirSync(sandboxModules, { recursive: true });
rmSync(join(sandboxModules, 'mocha'), { force: true, recursive: true });
symlinkSync(relative(sandboxModules, join(here, 'node_modules', 'mocha')), join(sandboxModules, 'mocha'));

run(join(here, 'node_modules', '.bin', 'stryker'), ['run', relative(root, join(here, 'stryker.config.mjs')), ...process.argv.slice(2)], root);
