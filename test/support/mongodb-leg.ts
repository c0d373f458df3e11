/**
 * The MongoDB legs of the suite: suites that run only when MONGODB_URL is set (a real MongoDB, or the FerretDB
 * that `npm run test:mongo` and `.ci/run` start). Without it each leg is one test that says what it skipped, or,
 * under CI=true, fails saying so (legs.ts). Every leg gets fresh database names, dropped after it, so legs and runs
 * sharing one server never collide. The suites are recorded so that the root hook (leg-report.ts) counts them.
 */
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { cannotRun, registerLegSuite } from './legs.ts';

export const mongoUrl: string | undefined = process.env['MONGODB_URL'] || undefined;

/** The server the legs run against: FerretDB answers `buildInfo` with its own version beside MongoDB's. */
export interface MongoEngine {
  name: 'FerretDB' | 'MongoDB';
  version: string;
}

/**
 * MongoDB features FerretDB 1.24 lacks, met by these tests, each with what it costs (the README lists them). The
 * adapters keep MongoDB's way; only the tests that need one of these skip on FerretDB, saying why.
 */
export const FERRETDB_GAPS = {} as const satisfies Record<string, string>;
export type FerretDbGap = keyof typeof FERRETDB_GAPS;

export interface MongoLeg {
  url: string;
  /** A database name no other leg or run uses (FerretDB allows letters, digits, `_` and `-`); dropped after the leg. */
  database(prefix: string): string;
  engine(): Promise<MongoEngine>;
  /** Skips the running test when the server is FerretDB, which lacks `feature`, printing why. */
  requires(context: Mocha.Context, feature: FerretDbGap): Promise<void>;
}

let engine: Promise<MongoEngine> | undefined;

export function mongoEngine(url: string): Promise<MongoEngine> {
  engine ??= (async () => {
    const client = await MongoClient.connect(url, { serverSelectionTimeoutMS: 5_000 });
    try {
      const info = await client.db('admin').command({ buildInfo: 1 });
      return typeof info['ferretdbVersion'] === 'string'
        ? { name: 'FerretDB', version: info['ferretdbVersion'] }
        : { name: 'MongoDB', version: String(info['version']) };
    } finally {
      await client.close();
    }
  })();
  return engine;
}

async function dropDatabases(url: string, names: string[]): Promise<void> {
  if (names.length === 0) return;
  const client = await MongoClient.connect(url, { serverSelectionTimeoutMS: 5_000 });
  try {
    for (const name of names) await client.db(name).dropDatabase();
  } finally {
    await client.close();
  }
}

/**
 * `describe` for a suite that needs MongoDB. `what` says, in the skip line, what does not run without it.
 */
export function describeMongo(title: string, what: string, body: (this: Mocha.Suite, leg: MongoLeg) => void): void {
  const url = mongoUrl;
  if (!url) {
    const suite = describe(title, function () {
      it(`runs when MONGODB_URL is set (${what})`, function () {
        cannotRun(this, 'MongoDB', `MONGODB_URL is not set, so ${what} does not run`, 'MONGODB_URL is not set (npm run test:mongo runs them)');
      });
    });
    registerLegSuite('MongoDB', suite);
    return;
  }
  const databases: string[] = [];
  const leg: MongoLeg = {
    url,
    database(prefix) {
      const name = `wc_${prefix}_${randomUUID().slice(0, 8)}`;
      databases.push(name);
      return name;
    },
    engine: () => mongoEngine(url),
    async requires(context, feature) {
      const running = await mongoEngine(url);
      if (running.name !== 'FerretDB') return;
      console.log(`      skipped on FerretDB ${running.version}: ${FERRETDB_GAPS[feature]}`);
      context.skip();
    },
  };
  const suite = describe(title, function () {
    body.call(this, leg);
    // Defined after the body's own hooks, so it runs after them: Mocha runs a suite's `after` hooks in the order they
    // were defined, and a database dropped while the suite's processes still query it crashed FerretDB (a SIGBUS in
    // its SQLite backend's WAL index) for every MongoDB suite after it.
    after(() => dropDatabases(url, databases.splice(0)));
  });
  registerLegSuite('MongoDB', suite);
}
