// Mutation testing (issues 16 and 23): `npm run mutate`, not part of `npm test`. It mutates the modules that decide
// what a client sees and runs the suites that hold them; the score and what survives are in test/README.md.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'mocha',
  // Sandboxes resolve `mocha` from the folder that holds them, where mutate.mjs puts Mocha 11 (see there).
  symlinkNodeModules: false,
  tempDirName: '.stryker-tmp',
  // The project's TypeScript 7 has no JavaScript API for Stryker to rewrite tsconfig.json with, and tsconfig.json
  // extends and references nothing, so there is nothing to rewrite: Stryker is pointed at no tsconfig at all.
  tsconfigFile: 'mutation/no-tsconfig.json',
  // The mocha runner loads the specs in its own worker, where .mocharc.json's node-option does not apply.
  testRunnerNodeArgs: ['--import', 'tsx'],
  mochaOptions: {
    // The suites that exercise these modules in process, in seconds. The slow ones (reliability, pipeline through
    // Redis, crash tests) prove other things and would make every mutant cost minutes.
    spec: [
      'test/unit/**/*.test.ts',
      'test/api/*.test.ts',
      'test/services/*.test.ts',
      'test/projector/*.test.ts',
      'test/contract/memory-read-store*.test.ts',
    ],
    // The shared limits through a real Redis wait for timeouts of 100 ms and retries after a second: under the
    // mutation tester's load they would fail on timing alone. The degraded mode is held by
    // test/api/rate-limit-clock.test.ts on a fake clock instead, the namespaces and the way back to shared limits by
    // test/api/rate-limit-shared.test.ts against an in-process stand-in for the Redis driver's command.
    ignore: ['test/api/rate-limit-redis.test.ts'],
  },
  mutate: [
    'services/*/*.decide.ts',
    'shared/projections/*.ts',
    'shared/public-api/operations/*.ts',
    'shared/public-api/validation/*.ts',
    'shared/money/*.ts',
    'read-api/rate-limit/*.ts',
    '!read-api/rate-limit/*.d.ts',
    'read-api/cache/*.ts',
    'read-api/signing/*.ts',
  ],
  coverageAnalysis: 'perTest',
  // Static mutants (code run once at import: the operations' schemas and specs) can only be judged by running every
  // test, about 40 s each on this machine; the 480 of them would take five hours. They are left out and counted in
  // test/README.md; the schemas they would change are held by the validation and OpenAPI tests all the same.
  ignoreStatic: true,
  // Two cores shared with other work: one test process at a time.
  concurrency: 1,
  timeoutMS: 5_000,
  // Only mutants whose code or tests changed since the last run are tested again. The file stays out of git: it is
  // 2 MB, rewritten by every run and stale as soon as anyone changes a mutated file, so committed it would only
  // make merge conflicts. A fresh clone makes one full run (about 15 minutes at concurrency 1), then goes faster.
  incremental: true,
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
  cleanTempDir: 'always',
};
