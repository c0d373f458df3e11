/**
 * The legs of the suite that need more than Node: a MongoDB server, redis-server, chromium, the build, an
 * EventStoreDB server, Go with its modules (the interop of the transparency log and of MCP: test/interop). Their
 * suites are recorded here so that the root hook (leg-report.ts) can count, at the end of the run, the tests of each
 * leg that ran.
 *
 * CI (`.ci/run`, which runs with CI=true) promises every leg but EventStoreDB, of which no server can be had on its
 * machine: there a promised leg that cannot run fails the run, naming why, since a skip would make a green run
 * that proves nothing. Elsewhere (a developer without chromium, say) the leg skips, saying why.
 */
import { fileURLToPath } from 'node:url';

export type Leg = 'MongoDB' | 'Redis' | 'browser' | 'build' | 'EventStoreDB' | 'Go';

/** In the order the end-of-run summary lists them. */
export const LEGS: readonly Leg[] = ['MongoDB', 'Redis', 'browser', 'build', 'EventStoreDB', 'Go'];

/** The legs that must run under CI=true. */
export const CI_PROMISES: ReadonlySet<Leg> = new Set<Leg>(['MongoDB', 'Redis', 'browser', 'build', 'Go']);

/** Suites of each leg, and the test files of legs recorded by file (Redis: the files that start a redis-server). */
export const legSuites = new Map<Leg, Mocha.Suite[]>();
export const legFiles = new Map<Leg, Set<string>>();
/** Why a leg skipped, for the summary. */
export const legSkips = new Map<Leg, string>();

export function registerLegSuite(leg: Leg, suite: Mocha.Suite): void {
  legSuites.set(leg, [...(legSuites.get(leg) ?? []), suite]);
}

/** The test file in the current call stack: the one whose hook or test called (read before any `await`). */
export function callingTestFile(): string | undefined {
  const frame = /(?:file:\/\/)?(\/[^\s():]+\.test\.ts)/.exec(new Error().stack ?? '');
  if (!frame?.[1]) return undefined;
  return frame[0].startsWith('file:') ? fileURLToPath(`file://${frame[1]}`) : frame[1];
}

/** Counts the tests of `file` as tests of `leg` (Redis: the files that start a redis-server). */
export function registerLegFile(leg: Leg, file: string | undefined): void {
  if (file !== undefined) legFiles.set(leg, (legFiles.get(leg) ?? new Set()).add(file));
}

/** The error a promised leg that cannot run fails with under CI=true; undefined where the leg may skip instead. */
export function ciRefusal(leg: Leg, why: string, env: NodeJS.ProcessEnv = process.env): Error | undefined {
  if (env['CI'] !== 'true' || !CI_PROMISES.has(leg)) return undefined;
  return new Error(`CI=true and the ${leg} leg cannot run: ${why}`);
}

/**
 * From a leg's hook or test: under CI=true fails a promised leg, naming why; otherwise skips, saying why.
 * `summary` is why the leg as a whole skipped, for the end-of-run line.
 */
export function cannotRun(context: Mocha.Context, leg: Leg, why: string, summary = why): never {
  const refusal = ciRefusal(leg, why);
  if (refusal) throw refusal;
  legSkips.set(leg, summary);
  console.log(`      skipped: ${why}`);
  return context.skip();
}
