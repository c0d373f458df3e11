/**
 * `npm run mutate`: StrykerJS on the modules that decide what a client sees (see stryker.config.mjs).
 *
 * Stryker's mocha runner cannot load Mocha 12 yet (it requires Mocha's cli files without their new `.cjs` extension;
 * stryker-js PR 6205), so Stryker lives in this folder with a Mocha 11 of its own, out of the project's packages.
 * The runner resolves `mocha` from its sandbox: the sandboxes get no `node_modules` link, and the folder that holds
 * them has a `node_modules` with only `mocha` in it, pointing here. Every other package a test imports resolves
 * from the project's own `node_modules`, as in `npm test`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, matchesGlob, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { folderReport } from './folder-scores.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const run = (command, args, cwd) => {
  const { status } = spawnSync(command, args, { cwd, stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
};

/** `--profile NAME`: stryker.NAME.config.mjs instead of stryker.config.mjs (`trust`: the trust modules alone). */
function profileOf(args) {
  const at = args.indexOf('--profile');
  if (at === -1) return { args, configFile: join(here, 'stryker.config.mjs') };
  const configFile = join(here, `stryker.${args[at + 1]}.config.mjs`);
  if (!args[at + 1] || !existsSync(configFile)) {
    console.error(`mutate: --profile needs the name of a mutation/stryker.NAME.config.mjs, e.g. --profile trust`);
    process.exit(2);
  }
  return { args: [...args.slice(0, at), ...args.slice(at + 2)], configFile };
}
const profile = profileOf(process.argv.slice(2));
const { default: config, MUTATED } = await import(pathToFileURL(profile.configFile).href);

if (!existsSync(join(here, 'node_modules', '.bin', 'stryker'))) run('npm', ['ci', '--no-audit', '--no-fund'], here);

const sandboxModules = join(root, '.stryker-tmp', 'node_modules');
mkdirSync(sandboxModules, { recursive: true });
rmSync(join(sandboxModules, 'mocha'), { force: true, recursive: true });
symlinkSync(relative(sandboxModules, join(here, 'node_modules', 'mocha')), join(sandboxModules, 'mocha'));

/**
 * `--since REF`: only the mutated modules that differ from REF (committed since the branch left it, or changed in
 * the working tree), passed to Stryker as its `--mutate` list; nothing to do when the change touched none. Any
 * other argument goes to Stryker as it is (`--mutate a.ts,b.ts` names the files by hand).
 */
function sinceArguments(args) {
  const at = args.indexOf('--since');
  if (at === -1) return args;
  const ref = args[at + 1];
  if (!ref) {
    console.error('mutate: --since needs a git reference, e.g. --since main');
    process.exit(2);
  }
  const git = (...gitArgs) => execFileSync('git', gitArgs, { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
  const changed = new Set([...git('diff', '--name-only', `${ref}...HEAD`), ...git('diff', '--name-only', 'HEAD'), ...git('ls-files', '--others', '--exclude-standard')]);
  const included = MUTATED.filter((glob) => !glob.startsWith('!'));
  const excluded = MUTATED.filter((glob) => glob.startsWith('!')).map((glob) => glob.slice(1));
  const files = [...changed].filter((file) => existsSync(join(root, file))
    && included.some((glob) => matchesGlob(file, glob)) && !excluded.some((glob) => matchesGlob(file, glob))).sort();
  if (files.length === 0) {
    console.log(`mutate: no mutated module changed since ${ref}; nothing to do`);
    process.exit(0);
  }
  console.log(`mutate: ${files.length} module(s) changed since ${ref}: ${files.join(', ')}`);
  return [...args.slice(0, at), ...args.slice(at + 2), '--mutate', files.join(',')];
}

/**
 * Two ways to narrow or deepen a profile, written as a small configuration file that extends the profile's, beside
 * the sandboxes (Stryker takes these from a configuration file only):
 * - `--spec a.test.ts,test/x/*.test.ts`: only these suites, in place of the profile's, for a module whose spec-wide
 *   dry run costs more than its mutants (the codec, which every append reaches). A narrower spec can only let more
 *   mutants survive, never kill one the profile's spec would not.
 * - `--fresh`: every mutant in a test process of its own, running every test of the spec. Code whose result is kept
 *   after its first use (the codec's validators, compiled once) is otherwise judged against what an earlier,
 *   unmutated run kept, and per-test coverage credits it to whichever test came first.
 */
function narrowedArguments(args, configFile) {
  const specAt = args.indexOf('--spec');
  const fresh = args.includes('--fresh');
  if (specAt === -1 && !fresh) return { args, configFile };
  if (specAt !== -1 && !args[specAt + 1]) {
    console.error('mutate: --spec needs a comma-separated list of test files or globs');
    process.exit(2);
  }
  const spec = specAt === -1 ? undefined : args[specAt + 1].split(',');
  const overrides = [
    spec && `mochaOptions: { ...profile.mochaOptions, spec: ${JSON.stringify(spec)} }`,
    fresh && `coverageAnalysis: 'all', ignoreStatic: false, maxTestRunnerReuse: 1, force: true`,
  ].filter(Boolean);
  const narrowed = join(root, '.stryker-tmp', 'narrowed.config.mjs');
  writeFileSync(narrowed, [
    `import profile from ${JSON.stringify(pathToFileURL(configFile).href)};`,
    `export default { ...profile, ${overrides.join(', ')} };`,
    '',
  ].join('\n'));
  if (spec) console.log(`mutate: the suites run are ${spec.join(', ')}`);
  if (fresh) console.log('mutate: every mutant in a fresh test process, against the whole spec');
  const rest = args.filter((arg, at) => arg !== '--fresh' && (specAt === -1 || (at !== specAt && at !== specAt + 1)));
  return { args: rest, configFile: narrowed };
}

const narrowed = narrowedArguments(sinceArguments(profile.args), profile.configFile);
const startedAt = Date.now();
const { status } = spawnSync(join(here, 'node_modules', '.bin', 'stryker'), ['run', relative(root, narrowed.configFile), ...narrowed.args], { cwd: root, stdio: 'inherit' });

// The same break for every folder as Stryker applies to the whole, from the report this run wrote.
const reportFile = join(root, config.jsonReporter.fileName);
if (!existsSync(reportFile) || statSync(reportFile).mtimeMs < startedAt) process.exit(status ?? 1);
const { text, under } = folderReport(JSON.parse(readFileSync(reportFile, 'utf8')), config.thresholds.break);
console.log(`\n${text}`);
if (under.length > 0) console.error(`mutate: under ${config.thresholds.break} % in ${under.join(', ')}`);
process.exit(status !== 0 ? status ?? 1 : under.length > 0 ? 1 : 0);
