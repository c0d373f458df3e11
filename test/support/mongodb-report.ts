/**
 * Root hook plugin (loaded by .mocharc.json): at the end of the run, one line saying how many MongoDB tests ran,
 * and against which engine, or that the MongoDB legs were skipped, so that a CI log shows it plainly.
 */
import { mongoEngine, mongoSuites, mongoUrl } from './mongodb-leg.ts';

function testsOf(suite: Mocha.Suite): Mocha.Test[] {
  return [...suite.tests, ...suite.suites.flatMap(testsOf)];
}

export const mochaHooks = {
  async afterAll(): Promise<void> {
    // A run of files that declare no MongoDB leg has nothing to report.
    if (mongoSuites.length === 0) return;
    const legs = mongoSuites.map((suite) => suite.fullTitle());
    if (!mongoUrl) {
      console.log(`\n  MongoDB legs: SKIPPED, MONGODB_URL is not set (npm run test:mongo runs them): ${legs.join('; ')}`);
      return;
    }
    const tests = mongoSuites.flatMap(testsOf);
    const count = (state: Mocha.Test['state']) => tests.filter((test) => test.state === state).length;
    const skipped = tests.filter((test) => test.isPending()).length;
    const engine = await mongoEngine(mongoUrl).then((e) => `${e.name} ${e.version}`, (error: unknown) => `an unreachable server (${String(error)})`);
    console.log(`\n  MongoDB legs against ${engine}: ${tests.length} tests in ${legs.length} suites, `
      + `${count('passed')} passed, ${count('failed')} failed, ${skipped} skipped, ${tests.length - count('passed') - count('failed') - skipped} not run`);
  },
};
