/**
 * Root hook plugin (loaded by .mocharc.json): at the end of the run, one line per leg of the suite that needs more
 * than Node (legs.ts), counting its tests that passed, failed and were skipped, or saying why the whole leg was
 * skipped, under the Node version that ran them, so that a CI log shows plainly what ran.
 */
import { mongoEngine, mongoUrl } from './mongodb-leg.ts';
import { LEGS, legFiles, legSkips, legSuites, type Leg } from './legs.ts';

function testsOf(suite: Mocha.Suite): Mocha.Test[] {
  return [...suite.tests, ...suite.suites.flatMap(testsOf)];
}

function legTests(leg: Leg, root: Mocha.Suite): Mocha.Test[] {
  const files = legFiles.get(leg);
  const byFile = files ? testsOf(root).filter((test) => test.file !== undefined && files.has(test.file)) : [];
  return [...new Set([...(legSuites.get(leg) ?? []).flatMap(testsOf), ...byFile])];
}

async function legName(leg: Leg): Promise<string> {
  if (leg !== 'MongoDB' || !mongoUrl) return leg;
  const engine = await mongoEngine(mongoUrl).then((e) => `${e.name} ${e.version}`, (error: unknown) => `an unreachable server (${String(error)})`);
  return `MongoDB against ${engine}`;
}

export function legLine(name: string, tests: Mocha.Test[], skippedWhy: string | undefined): string {
  const count = (state: Mocha.Test['state']) => tests.filter((test) => test.state === state).length;
  const passed = count('passed');
  const failed = count('failed');
  const skipped = tests.filter((test) => test.isPending()).length;
  if (skippedWhy !== undefined && passed + failed === 0) return `${name}: SKIPPED, ${skippedWhy}`;
  return `${name}: ${tests.length} tests, ${passed} passed, ${failed} failed, ${skipped} skipped, ${tests.length - passed - failed - skipped} not run`;
}

export const mochaHooks = {
  async afterAll(this: Mocha.Context): Promise<void> {
    let root = this.test?.parent;
    while (root?.parent) root = root.parent;
    const lines: string[] = [];
    for (const leg of LEGS) {
      const tests = root ? legTests(leg, root) : [];
      // A run of files that hold none of a leg's tests has nothing to say about it.
      if (tests.length > 0) lines.push(legLine(await legName(leg), tests, legSkips.get(leg)));
    }
    if (lines.length > 0) console.log(`\n  Legs on Node ${process.version}:\n${lines.map((line) => `    ${line}`).join('\n')}`);
  },
};
