/**
 * Issue 40, defect 1, as real processes (a MongoDB leg): two read APIs, two BullMQ projector workers and the admin
 * API over Redis, MongoDB (FerretDB in CI) and one SQLite event store, started as their npm scripts start them. The
 * serials projection and the transparency log run on different workers; the serials worker is frozen (SIGSTOP) and
 * a theft is appended, which the log's worker goes on to put in the log and a replica signs into a checkpoint, while
 * the replicas still answer AUTHENTIC from the serials read model of before the theft. Signed verifications of the
 * stolen serial are fetched from both replicas all along (seeded order and pauses; the seed is printed): no signed
 * AUTHENTIC may pin a tree that holds the theft (asked of the log's inclusion endpoint), and `watchcat receipt verify
 * --checkpoint` must accept every receipt saved.
 *
 * The two projections run on different workers as an operator puts them there: each worker is given its projections
 * (`PROJECTIONS`), the log alone on one, the read models on the other.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { createCliContext } from '../../services/cli/cli-context.ts';
import { run } from '../../services/cli/program.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { between, seededRandom } from '../../shared/random/seeded-random.ts';
import { tinyCatalogue } from '../services/support/tiny-catalogue.ts';
import { send } from '../support/http.ts';
import { describeMongo } from '../support/mongodb-leg.ts';
import { freePort, startTestRedis, type TestRedis } from '../support/redis-server.ts';
import { startWatchcatProcess, type WatchcatProcess } from '../support/watchcat-process.ts';

const KEY = 'signed-theft-test-key-0123456789ab';
const SEED = Number(process.env['SIGNED_THEFT_SEED'] ?? 4_040);
const LOG = 'transparency-log';
/** How long signed verifications are fetched once the theft is appended (the frozen worker's lease lasts 10 s). */
const WINDOW_MS = 14_000;
/** How long a process may take to start on a loaded machine (tsx compiles at each start). */
const STARTUP_MS = 90_000;

/** Asks `done` every 50 ms (each asks processes over HTTP or the store) until it holds; fails naming `what` after `ms`. */
async function pollUntil(what: string, done: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await done())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(50);
  }
}

interface Answer {
  replica: number;
  status: number;
  verification: string | undefined;
  position: number;
  /** `<size> <root>` as the answer pins it; undefined when it pins none. */
  checkpoint: string | undefined;
  /** The replica's published checkpoint, read just before the request, holds the theft. */
  logHadTheft: boolean;
  /** The answer as `curl -si` saves it. */
  receipt: Buffer;
}

describeMongo('a signed AUTHENTIC never pins a tree holding a theft its data had not seen (issue 40, real processes)', 'the signed-answer theft topology', function (leg) {
  this.timeout(240_000);
  const random = seededRandom(SEED);
  let redis: TestRedis;
  let dataDir: string;
  let env: Record<string, string>;
  let apis: string[] = [];
  let processes: WatchcatProcess[] = [];
  /** The worker of the read models (the serials among them), frozen once the theft is appended. */
  let serialsWorker: WatchcatProcess;
  let adminUrl: string;

  async function adminCall(method: string, path: string, body?: unknown): Promise<number> {
    const response = await send(adminUrl, path, {
      method, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(response.status, response.text).to.be.within(200, 201);
    return response.json<{ position?: number }>().position ?? 0;
  }

  async function head(): Promise<number> {
    const events = openSqliteEventStore(join(dataDir, 'events.sqlite3'));
    try {
      return await events.headPosition();
    } finally {
      await events.close();
    }
  }

  const servedAt = async (url: string) => (await send(url, '/api/public/status')).json<{ read_model: { position: number } }>().read_model.position;

  /** `watchcat receipt verify FILE --checkpoint` in this process, against `api`. */
  async function receiptVerify(api: string, receipt: Buffer, name: string): Promise<{ code: number; notes: string[] }> {
    const file = join(dataDir, `${name}.txt`);
    writeFileSync(file, receipt);
    const notes: string[] = [];
    const context = createCliContext({ LOG_LEVEL: 'silent', PORT: new URL(api).port }, { out: () => {}, note: (line) => notes.push(line) });
    const code = await run(['node', 'watchcat', 'receipt', 'verify', file, '--jwks', `${api}/.well-known/jwks.json`,
      '--checkpoint', `${api}/.well-known/transparency/checkpoint`], context);
    return { code, notes };
  }

  before(async function () {
    console.log(`      seed ${SEED} (SIGNED_THEFT_SEED replays it)`);
    redis = await startTestRedis();
    dataDir = mkdtempSync(join(tmpdir(), 'watchcat-signed-theft-'));
    env = {
      DATA_DIR: dataDir, REDIS_URL: redis.url, MONGODB_URL: leg.url, MONGODB_DB: leg.database('signed_theft'),
      HOST: '127.0.0.1', HEALTH_PORT: '0', SEED_DEMO: 'false', LOG_LEVEL: 'info', ADMIN_API_KEYS: `${KEY}:catalogue,${KEY}:serials`,
      RATE_LIMIT_PER_MINUTE: '1000000', VERIFY_RATE_LIMIT_PER_MINUTE: '1000000', VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE: '1000000',
      // Every receipt checked fetches the key set, the checkpoint and proofs: hundreds a minute from one address.
      FILE_RATE_LIMIT_PER_MINUTE: '1000000',
      // Answers keep coming while the serials' worker is frozen: the window this test looks into.
      READ_MODEL_MAX_LAG_SECONDS: '120', VERIFY_MAX_LAG_SECONDS: '120',
    };
    adminUrl = `http://127.0.0.1:${await freePort()}`;
    const admin = startWatchcatProcess('services', 'services/main.ts', { ...env, ADMIN_PORT: new URL(adminUrl).port });
    processes.push(admin);
    await admin.waitForLine(/admin API listening/, STARTUP_MS);
    // The read models on one worker, the log on the other.
    serialsWorker = startWatchcatProcess('projector', 'projector/main.ts', { ...env, PROJECTIONS: 'watches,collections,configurators,serials' });
    const logWorker = startWatchcatProcess('projector', 'projector/main.ts', { ...env, PROJECTIONS: LOG });
    processes.push(serialsWorker, logWorker);
    await Promise.all([serialsWorker.waitForLine(/projector started/, STARTUP_MS), logWorker.waitForLine(/projector started/, STARTUP_MS)]);
    for (let i = 0; i < 2; i += 1) {
      const [port, opsPort] = [await freePort(), await freePort()];
      const api = startWatchcatProcess('read-api', 'read-api/main.ts', { ...env, PORT: String(port), OPS_PORT: String(opsPort) });
      processes.push(api);
      await api.waitForLine(/read API listening/, STARTUP_MS);
      apis.push(`http://127.0.0.1:${port}`);
    }
  });

  after(async function () {
    await Promise.all(processes.map((p) => {
      p.child.kill('SIGCONT');
      return p.stop();
    }));
    await redis?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('pins, in every signed AUTHENTIC, a tree without the theft, and every receipt holds under receipt verify --checkpoint', async function () {
    await adminCall('POST', '/admin/import', tinyCatalogue());
    const serials = Array.from({ length: 4 }, (_, i) => `AUR-2024-${String(between(random, 100_000, 999_999))}${i}`);
    for (const serial of serials) await adminCall('POST', '/admin/serials', { serial, reference: 'AUR-LU-002', year: 2024 });
    const stolen = serials[between(random, 0, serials.length - 1)]!;
    const registered = await head();
    await pollUntil('both replicas serve the serials', async () => (await Promise.all(apis.map(servedAt))).every((at) => at >= registered), 40_000);
    serialsWorker.child.kill('SIGSTOP');
    let stolenAt: number;
    const answers: Answer[] = [];
    try {
      stolenAt = await adminCall('POST', `/admin/serials/${stolen}/stolen`);
      console.log(`      ${stolen} reported stolen at position ${stolenAt}; its serials' worker frozen`);
      const started = performance.now();
      while (performance.now() - started < WINDOW_MS) {
        const replica = between(random, 0, apis.length - 1);
        const api = apis[replica]!;
        const [, size] = (await send(api, '/.well-known/transparency/checkpoint')).text.split('\n');
        const logHadTheft = Number(size) > 0
          && (await send(api, `/api/public/transparency/inclusion?position=${stolenAt}&tree_size=${size}`)).status === 200;
        const response = await fetch(`${api}/api/public/verify/${stolen}`, { headers: { 'Accept-Signature': 'sig1=("@status")' } });
        const body = Buffer.from(await response.arrayBuffer());
        const headers = [...response.headers].map(([name, value]) => `${name}: ${value}`).join('\r\n');
        answers.push({
          replica, status: response.status, logHadTheft,
          verification: response.status === 200 ? (JSON.parse(body.toString('utf8')) as { verification_status: string }).verification_status : undefined,
          position: Number(response.headers.get('x-read-model-position')),
          checkpoint: response.headers.get('watchcat-checkpoint') ?? undefined,
          receipt: Buffer.concat([Buffer.from(`HTTP/1.1 ${response.status} OK\r\n${headers}\r\n\r\n`, 'latin1'), body]),
        });
        await sleep(between(random, 0, 40));
      }
    } finally {
      serialsWorker.child.kill('SIGCONT');
    }

    const authentic = answers.filter((a) => a.verification === 'AUTHENTIC' && a.checkpoint !== undefined);
    const exercised = authentic.filter((a) => a.logHadTheft);
    console.log(`      ${answers.length} signed answers, ${authentic.length} AUTHENTIC with a checkpoint, ${exercised.length} of them while the replica's log held the theft`);
    expect(exercised.length, 'signed AUTHENTIC answers served while the published log held the theft').to.be.above(0);
    expect(authentic.every((a) => a.position < stolenAt), 'AUTHENTIC only from data before the theft').to.equal(true);

    // The log's own word on each pinned tree: does it hold the event at the theft's position?
    const pinnedTrees = [...new Set(authentic.map((a) => a.checkpoint!))];
    const holdingTheft: string[] = [];
    for (const pinned of pinnedTrees) {
      const [size, root] = pinned.split(' ');
      const proof = await send(apis[0]!, `/api/public/transparency/inclusion?position=${stolenAt}&tree_size=${size}`);
      if (proof.status === 200 && proof.json<{ root: string }>().root === root) holdingTheft.push(pinned);
    }
    const contradicting = authentic.filter((a) => holdingTheft.includes(a.checkpoint!));
    expect(contradicting.map((a) => `AUTHENTIC at position ${a.position} pinning ${a.checkpoint} (replica ${a.replica})`),
      `${contradicting.length} signed AUTHENTIC answers whose pinned tree holds the theft`).to.deep.equal([]);

    const refused: string[] = [];
    for (const [index, answer] of answers.entries()) {
      if (answer.checkpoint === undefined) continue;
      const result = await receiptVerify(apis[answer.replica]!, answer.receipt, `receipt-${index}`);
      if (result.code !== 0) refused.push(`receipt ${index} (${answer.verification ?? answer.status}): ${result.notes.join(' ')}`);
    }
    expect(refused, `receipts refused by receipt verify --checkpoint:\n${refused.slice(0, 5).join('\n')}`).to.deep.equal([]);
  });
});
