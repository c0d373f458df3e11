// Mutation testing (issues 16, 23, 31 and 41): `npm run mutate`, not part of `npm test`. It mutates every module that
// carries a guarantee of ARCHITECTURE.md or a rule of docs/api.md and runs the suites that hold them; the score and
// what survives are in test/README.md. `npm run mutate -- --since main` mutates only those of them a change touched,
// `npm run mutate -- --profile trust` only the trust modules below with their suites (stryker.trust.config.mjs), and
// every run breaks under 85 % in any folder, not only overall (mutation/mutate.mjs, folder-scores.mjs).

/**
 * The modules that decide what an auditor or a monitor sees, and what makes an answer provable: the transparency
 * log (tree, tiles, publisher, routes, signed notes, key trust), the audit (log verify and watch, state-at) and
 * receipts, the control documents (leases, checkpoints, generations, the signed checkpoint), the event codec and the
 * state a command decides from.
 */
export const TRUST_MUTATED = [
  'shared/read-model/transparency/*.ts',
  'read-api/transparency/*.ts',
  'services/audit/*.ts',
  'services/audit/receipt/*.ts',
  'shared/read-model/projections/control-docs.ts',
  // Runs only against MongoDB: under scripts/with-ferretdb.sh, else its suite skips and its mutants go uncovered.
  'shared/adapters/mongodb-control-docs.ts',
  'shared/events/codec.ts',
  'services/write/handler/load-state.ts',
];

/** The suites that hold the trust modules and that the rest of the spec below leaves out. */
export const TRUST_SUITES = [
  'test/audit/*.test.ts',
  'test/interop/*.test.ts',
  'test/pipeline/transparency-log.test.ts',
  'test/contract/mongodb-control-docs.test.ts',
];

/** The modules mutated: what decides what a client sees, and what keeps the read models honest. */
export const MUTATED = [
  // Commands: the deciders and the states they decide from (a stolen serial registered again, say).
  'services/write/*/*.decide.ts',
  'services/write/*/*.state.ts',
  // Projections, their leases, generations, rebuild and parking.
  'shared/read-model/projections/*.ts',
  // The public answers: the answer policy that says what may be served, operations, validation, money, and the
  // read-model clock it reads.
  'shared/read-model/public-api/answer-policy.ts',
  'shared/read-model/public-api/operations/*.ts',
  'shared/read-model/public-api/validation/*.ts',
  'shared/read-model/public-api/read-model-clock.ts',
  'shared/money/*.ts',
  // Configuration defaults the contract names (the limits, the global verification budget).
  'shared/config/*.ts',
  // The read API: routes, rate limits, the answer caches, MCP, signed answers.
  'read-api/routes.ts',
  'read-api/rate-limit/*.ts',
  '!read-api/rate-limit/*.d.ts',
  'read-api/cache/*.ts',
  'read-api/mcp/*.ts',
  'read-api/signing/*.ts',
  // Keys and receipts: what a receipt proves.
  'shared/signing/*.ts',
  // The trust modules (services/audit/receipt among them).
  ...TRUST_MUTATED,
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
const config = {
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
      // The in-process reliability suites of the projection guarantees (simulated workers, a fake lease clock; a
      // second or two each): the only tests of a fence racing a previous owner's checkpoint.
      'test/reliability/projection-writers.test.ts',
      'test/reliability/rebuild-generations.test.ts',
      ...TRUST_SUITES,
    ],
    // The shared limits through a real Redis wait for timeouts of 100 ms and retries after a second: under the
    // mutation tester's load they would fail on timing alone. The degraded mode is held by
    // test/api/rate-limit-clock.test.ts on a fake clock instead, the namespaces and the way back to shared limits by
    // test/api/rate-limit-shared.test.ts against an in-process stand-in for the Redis driver's command.
    ignore: ['test/api/rate-limit-redis.test.ts'],
  },
  mutate: MUTATED,
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
  // A score under 85 % fails the run (exit code 1), whatever part of the modules was mutated; mutate.mjs applies the
  // same break to each folder's score.
  thresholds: { high: 90, low: 85, break: 85 },
  cleanTempDir: 'always',
};
export default config;

/**
 * A profile (`npm run mutate -- --profile NAME`): the configuration above for the modules `mutate` and the suites
 * `spec` alone, with its own incremental file and reports under reports/mutation/NAME/, so that no run overwrites
 * another's.
 */
export function profileOf(name, mutate, spec) {
  return {
    ...config,
    mutate,
    mochaOptions: { ...config.mochaOptions, spec },
    incrementalFile: `reports/mutation/${name}/stryker-incremental.json`,
    htmlReporter: { fileName: `reports/mutation/${name}/mutation.html` },
    jsonReporter: { fileName: `reports/mutation/${name}/mutation.json` },
  };
}
