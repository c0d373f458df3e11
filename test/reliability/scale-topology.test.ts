/**
 * The scale topology as real processes (a MongoDB leg): two read APIs, two BullMQ projector workers and the admin
 * API, sharing a private redis-server, MongoDB (FerretDB in CI) and one SQLite event store in one DATA_DIR, each
 * started with the node command its npm script runs. Seeded (the serial numbers, the kill point, the request mix)
 * and time-bounded. Issue 20 adds a rebuild under write load with both workers running, and a worker frozen
 * (SIGSTOP) mid-run past its lease then resumed: each must end equal to a clean rebuild, the frozen one finding its
 * lease lost and writing nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { between, seededRandom } from '../../shared/random/seeded-random.ts';
import { watchcat } from '../audit/support/watchcat-run.ts';
import { tinyCatalogue } from '../services/support/tiny-catalogue.ts';
import { send, type TestResponse } from '../support/http.ts';
import { describeMongo } from '../support/mongodb-leg.ts';
import { freePort, startTestRedis, type TestRedis } from '../support/redis-server.ts';
import { startWatchcatProcess, type WatchcatProcess } from '../support/watchcat-process.ts';
import { cleanRebuildView, readersView } from '../support/simulated-workers.ts';
import { createMongoReadStore } from '../../shared/adapters/mongodb-read-store.ts';
import { GENERATIONS_ID, type ReadStore } from '../../shared/ports/read-store.ts';
import { readProjectionStates } from '../../shared/read-model/projections/projection-states.ts';
import { until } from '../support/until.ts';

const KEY = 'topology-test-key-0123456789abcdef';
const SEED = Number(process.env['TOPOLOGY_SEED'] ?? 1_207);
const SERIALS = 24;

describeMongo('scale topology: 2 read APIs, 2 BullMQ projectors, admin API, Redis, MongoDB (real processes)', 'the multi-process topology', function (leg) {
  this.timeout(120_000);
  const random = seededRandom(SEED);
  let redis: TestRedis;
  let dataDir: string;
  let env: Record<string, string>;
  let apis: { process: WatchcatProcess; url: string; opsUrl: string }[] = [];
  /** What the first replica, started before any projector ran, answered then (issue 28). */
  let beforeAnyProjector: { verify: TestResponse; catalogue: TestResponse; ready: number };
  let projectors: WatchcatProcess[] = [];
  let admin: WatchcatProcess;
  let adminUrl: string;
  /** Client addresses (TRUST_PROXY): one per request unless given, so the polling never meets the rate limit. */
  let nextClient = 1;
  const client = () => {
    const n = nextClient++;
    return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
  };

  async function startApi(): Promise<{ process: WatchcatProcess; url: string; opsUrl: string }> {
    const [port, opsPort] = [await freePort(), await freePort()];
    const api = startWatchcatProcess('read-api', 'read-api/main.ts', { ...env, PORT: String(port), OPS_PORT: String(opsPort) });
    await api.waitForLine(/read API listening/);
    return { process: api, url: `http://127.0.0.1:${port}`, opsUrl: `http://127.0.0.1:${opsPort}` };
  }

  function startProjector(): WatchcatProcess {
    return startWatchcatProcess('projector', 'projector/main.ts', env);
  }

  async function adminCall(method: string, path: string, body?: unknown): Promise<number> {
    const response = await send(adminUrl, path, {
      method, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(response.status, response.text).to.be.within(200, 201);
    return response.json<{ position?: number }>().position ?? 0;
  }

  const get = (url: string, path: string, ip = client()): Promise<TestResponse> => send(url, path, { headers: { 'x-forwarded-for': ip } });

  async function position(url: string): Promise<number> {
    return (await get(url, '/api/public/status')).json<{ read_model: { position: number } }>().read_model.position;
  }

  /** Milliseconds until every API serves the read model at `target` or later. */
  async function untilServed(target: number, timeoutMs = 40_000): Promise<number[]> {
    const started = performance.now();
    return Promise.all(apis.map(async ({ url }) => {
      while ((await position(url)) < target) {
        if (performance.now() - started > timeoutMs) throw new Error(`${url} did not reach position ${target} in ${timeoutMs} ms`);
        await sleep(5);
      }
      return performance.now() - started;
    }));
  }

  async function head(): Promise<number> {
    const store = openSqliteEventStore(join(dataDir, 'events.sqlite3'));
    try {
      return await store.headPosition();
    } finally {
      await store.close();
    }
  }

  /**
   * Nothing lost and nothing applied twice: the read models served (every document of the live generations, each
   * projection's position) equal a clean rebuild of the history.
   */
  async function expectCleanRebuild(what: string): Promise<void> {
    const store = openSqliteEventStore(join(dataDir, 'events.sqlite3'));
    const mongo = await createMongoReadStore(leg.url, env['MONGODB_DB']!);
    try {
      expect(await readersView(mongo), what).to.deep.equal(await cleanRebuildView(store));
    } finally {
      await mongo.close();
      await store.close();
    }
  }

  /** Price changes of the two watches through the admin API until `running()` says stop; the last position, how many. */
  async function priceChanges(running: () => boolean): Promise<{ last: number; commands: number }> {
    let last = 0;
    let commands = 0;
    while (running()) {
      const reference = commands % 2 === 0 ? 'AUR-LU-001' : 'AUR-LU-002';
      last = await adminCall('PUT', `/admin/watches/${reference}/price`, { price_eur: 15_000 + between(random, 0, 9_999) });
      commands += 1;
      // A steady back office, not a flood: FerretDB projects a few hundred events a second.
      await sleep(25);
    }
    return { last, commands };
  }

  /**
   * Freezes a projector at a moment it holds a projection's lease with events left to apply, so that it has a run
   * under way to find fenced when it resumes (frozen between runs, it would have nothing to show); answers which.
   */
  async function freezeMidRun(store: ReadStore): Promise<WatchcatProcess> {
    for (let attempt = 0; attempt < 400; attempt += 1) {
      // Either worker: whichever holds leases is the one taken over (one may hold them all, taken in a lease poll).
      const projector = projectors[attempt % projectors.length]!;
      const owner = new RegExp(`:${projector.child.pid}:`);
      await sleep(between(random, 5, 50));
      projector.child.kill('SIGSTOP');
      const control = await store.readControl();
      const positions = new Map((await readProjectionStates(store)).map((state) => [state.name, state.position]));
      const last = await head();
      // Its lease taken whole (its token recorded in the pointer, as the last step before it fences and writes):
      // frozen earlier, it would find on resuming only that another worker holds the lease, and log nothing more.
      const tokens = (control.find((doc) => doc._id === GENERATIONS_ID)?.['tokens'] ?? {}) as Record<string, number>;
      const underWay = control.some((doc) => doc._id.startsWith('lease:') && owner.test(String(doc['owner']))
        && Number(doc['expires_at']) > Date.now() && tokens[String(doc['projection'])] === doc['token']
        && (positions.get(String(doc['projection'])) ?? last) < last);
      if (underWay) return projector;
      projector.child.kill('SIGCONT');
    }
    throw new Error('no projector ever held a lease with events left to apply');
  }

  before(async function () {
    redis = await startTestRedis();
    dataDir = mkdtempSync(join(tmpdir(), 'watchcat-topology-'));
    env = {
      DATA_DIR: dataDir, REDIS_URL: redis.url, MONGODB_URL: leg.url, MONGODB_DB: leg.database('topology'),
      HOST: '127.0.0.1', HEALTH_PORT: '0', SEED_DEMO: 'false', TRUST_PROXY: '127.0.0.1', LOG_LEVEL: 'info',
      ADMIN_API_KEYS: `${KEY}:catalogue,${KEY}:serials`,
      // The rebuild test verifies under load from many addresses; the global budget is not what it tests.
      VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE: '1000000',
    };
    adminUrl = `http://127.0.0.1:${await freePort()}`;
    // A replica the proxy may route to before any projector has run: what it answers is checked below.
    const first = await startApi();
    beforeAnyProjector = {
      verify: await get(first.url, '/api/public/verify/AUR-2019-000777'), catalogue: await get(first.url, '/api/public/catalogue'),
      ready: (await send(first.opsUrl, '/readyz')).status,
    };
    admin = startWatchcatProcess('services', 'services/main.ts', { ...env, ADMIN_PORT: new URL(adminUrl).port });
    projectors = [startProjector(), startProjector()];
    await admin.waitForLine(/admin API listening/);
    await Promise.all(projectors.map((p) => p.waitForLine(/projector started/)));
    apis = [first, await startApi()];
  });

  it('a replica started before any projector ran refuses (503, not ready) instead of answering from nothing, then serves', async function () {
    expect(beforeAnyProjector.verify.status, 'never NOT_FOUND from a registry nobody built').to.equal(503);
    expect(beforeAnyProjector.verify.json()).to.deep.equal({ detail: 'The registry cannot be checked right now; try again shortly' });
    expect(beforeAnyProjector.catalogue.status).to.equal(503);
    expect(beforeAnyProjector.catalogue.headers['retry-after']).to.match(/^\d+$/);
    expect(beforeAnyProjector.ready).to.equal(503);
    // The projectors confirm the (empty) history's head: built, and served.
    const started = performance.now();
    while ((await get(apis[0]!.url, '/api/public/catalogue')).status !== 200) {
      if (performance.now() - started > 30_000) throw new Error('the first replica never served once the projectors ran');
      await sleep(50);
    }
    expect((await send(apis[0]!.opsUrl, '/readyz')).status).to.equal(200);
  });

  after(async function () {
    await Promise.all([...apis.map((a) => a.process), ...projectors, admin].filter(Boolean).map((p) => p.stop()));
    await redis?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('shows commands made through the admin API through both APIs, and measures the lag', async function () {
    const imported = await adminCall('POST', '/admin/import', tinyCatalogue());
    await untilServed(Math.max(imported, await head()));
    const lags: number[][] = [];
    for (const [round, euros] of [[1, 18_000.5], [2, 19_250], [3, 21_000.25]] as const) {
      const changed = await adminCall('PUT', '/admin/watches/AUR-LU-001/price', { price_eur: euros });
      lags.push(await untilServed(changed));
      for (const { url } of apis) {
        const detail = (await get(url, '/api/public/catalogue/AUR-LU-001')).json<{ price_eur: number }>();
        expect(detail.price_eur, `round ${round} on ${url}`).to.equal(euros);
      }
    }
    const all = lags.flat().sort((a, b) => a - b);
    console.log(`      admin command -> both APIs: lag ${all.map((ms) => ms.toFixed(0)).join(', ')} ms (median ${all[Math.floor(all.length / 2)]!.toFixed(0)} ms)`);
  });

  it('shares the rate limit between the APIs: the 61st request of one client over both is refused', async function () {
    const ip = '203.0.113.61';
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) statuses.push((await get(apis[i % 2]!.url, '/api/public/collections', ip)).status);
    expect(statuses.slice(0, 60).every((status) => status === 200), statuses.join(",")).to.equal(true);
    expect(statuses[60], statuses.join(",")).to.equal(429);
  });

  it('a SIGKILLed projector worker mid-stream loses nothing and applies nothing twice; the other carries on', async function () {
    const serials = Array.from({ length: SERIALS }, (_, i) => `AUR-2024-${String(100_000 + between(random, 0, 899_999) + i).padStart(6, '0')}`);
    const killAt = between(random, 4, SERIALS - 8);
    let last = 0;
    for (const [i, serial] of serials.entries()) {
      if (i === killAt) await projectors[0]!.kill();
      last = await adminCall('POST', '/admin/serials', { serial, reference: 'AUR-LU-002', year: 2024 });
    }
    const lag = await untilServed(last, 60_000);
    console.log(`      worker killed after ${killAt} of ${SERIALS} commands (seed ${SEED}); the other caught up in ${Math.max(...lag).toFixed(0)} ms`);
    for (const serial of serials) {
      const verified = (await get(apis[0]!.url, `/api/public/verify/${serial}`)).json<{ verification_status: string }>();
      expect(verified.verification_status, serial).to.equal('AUTHENTIC');
    }
    await expectCleanRebuild('after a worker was killed');
    projectors[0] = startProjector();
    await projectors[0].waitForLine(/projector started/);
  });

  it('watchcat rebuild into MongoDB while both APIs serve under load: no error answer, never a half-built model, a theft never unseen', async function () {
    const stolen = 'AUR-2024-STOLEN';
    await adminCall('POST', '/admin/serials', { serial: stolen, reference: 'AUR-LU-002', year: 2024 });
    await untilServed(await adminCall('POST', `/admin/serials/${stolen}/stolen`));
    const expected = (await get(apis[0]!.url, '/api/public/catalogue?limit=100')).json<{ total: number }>().total;
    const serials = (await get(apis[0]!.url, '/api/public/collections')).json<{ collections: { product_count: number }[] }>();
    const answers: { status: number; total?: number; products?: number }[] = [];
    const verifications: string[] = [];
    let loading = true;
    const load = Promise.all(apis.map(async ({ url }) => {
      while (loading) {
        // Checked against the store: the serial's theft is in the history the whole time, so STOLEN (or an honest
        // 503) is the only truthful answer, whatever the generation either API reads.
        const verified = await get(url, `/api/public/verify/${stolen}`);
        verifications.push(verified.status === 200 ? verified.json<{ verification_status: string }>().verification_status : String(verified.status));
        const path = between(random, 0, 1) === 0 ? '/api/public/catalogue?limit=100' : '/api/public/collections';
        const response = await get(url, `${path}${path.includes('?') ? '&' : '?'}lang=${between(random, 0, 1) ? 'en' : 'fr'}`);
        const body = response.status === 200 ? response.json() : undefined;
        answers.push({
          status: response.status, total: body?.total,
          products: body?.collections?.reduce((sum: number, c: { product_count: number }) => sum + c.product_count, 0),
        });
      }
    }));
    await sleep(200);
    const result = await watchcat(env, 'rebuild');
    await sleep(300);
    loading = false;
    await load;
    // The switch is one update of the generation pointer: it runs on FerretDB as on MongoDB.
    expect(result.code, result.notes.join('\n')).to.equal(0);
    expect(answers.length).to.be.greaterThan(10);
    expect(answers.filter((a) => a.status !== 200), 'error answers').to.deep.equal([]);
    const products = serials.collections.reduce((sum, c) => sum + c.product_count, 0);
    const catalogues = answers.filter((answer) => answer.total !== undefined);
    const collections = answers.filter((answer) => answer.products !== undefined);
    // Both kinds of answer were checked, not one kind or none (the load picks each path at random).
    expect([catalogues.length, collections.length], 'catalogue and collections answers checked').to.satisfy(([c, p]: number[]) => c! > 0 && p! > 0);
    for (const answer of catalogues) expect(answer.total, 'catalogue total').to.equal(expected);
    for (const answer of collections) expect(answer.products, 'products over the collections').to.equal(products);
    expect(verifications.length).to.be.greaterThan(10);
    expect(verifications.filter((status) => status !== 'STOLEN' && status !== '503'), 'verifications of a stolen serial').to.deep.equal([]);
    console.log(`      ${answers.length} answers during the rebuild, all whole; ${verifications.length} verifications of a stolen serial, none AUTHENTIC`);
    const client = await MongoClient.connect(leg.url);
    try {
      const names = (await client.db(env['MONGODB_DB']!).listCollections().toArray()).map((c) => c.name);
      const generations = names.filter((name) => /__g\d+$/.test(name)).map((name) => name.replace(/__g\d+$/, '')).sort();
      expect(generations, 'one generation of each projected collection: the replaced ones are dropped').to.deep.equal(['collections', 'configurators', 'serials', 'tlog', 'watches']);
    } finally {
      await client.close();
    }
  });

  it('watchcat rebuild under write load with both workers running ends equal to a clean rebuild, no position going back', async function () {
    // A rebuild catching up with a moving head on FerretDB, on a shared machine: minutes, not seconds.
    this.timeout(300_000);
    let writing = true;
    const writes = priceChanges(() => writing);
    const seen = apis.map(() => 0);
    const wentBack: string[] = [];
    let watching = true;
    const watch = Promise.all(apis.map(async ({ url }, i) => {
      while (watching) {
        const now = await position(url);
        if (now < seen[i]!) wentBack.push(`${url}: ${seen[i]} -> ${now}`);
        seen[i] = Math.max(seen[i]!, now);
        await sleep(20);
      }
    }));
    let result: Awaited<ReturnType<typeof watchcat>>;
    let rebuildMs: number;
    let last: number;
    let commands: number;
    try {
      await sleep(300);
      const started = performance.now();
      result = await watchcat(env, 'rebuild');
      rebuildMs = performance.now() - started;
      await sleep(300);
    } finally {
      // Whatever happens, the load ends with the test: the next ones must not run under it.
      writing = false;
      ({ last, commands } = await writes);
    }
    try {
      await untilServed(Math.max(last, await head()), 60_000);
    } finally {
      watching = false;
      await watch;
    }
    expect(result.code, result.notes.join('\n')).to.equal(0);
    expect(commands, 'price changes made during the rebuild').to.be.greaterThan(3);
    expect(wentBack, 'positions the APIs served going back').to.deep.equal([]);
    await expectCleanRebuild('after a rebuild under write load');
    console.log(`      ${commands} price changes during a rebuild of ${(rebuildMs / 1000).toFixed(1)} s; the read models equal a clean rebuild`);
  });

  it('a projector frozen (SIGSTOP) holding a lease past its length while the other works on, then resumed (SIGCONT), finds its lease lost and writes nothing', async function () {
    let writing = true;
    const writes = priceChanges(() => writing);
    const store = await createMongoReadStore(leg.url, env['MONGODB_DB']!);
    try {
      const frozen = await freezeMidRun(store);
      // Past its lease (10 s) and BullMQ's lock (10 s): the other worker takes its projections over.
      await sleep(12_000);
      writing = false;
      const { last } = await writes;
      await untilServed(Math.max(last, await head()), 60_000);
      const before = await readersView(store);
      const logged = frozen.lines.length;
      frozen.child.kill('SIGCONT');
      // It held the lease when frozen, mid-run or standing: its run's next check or its lease's next renewal meets
      // the newer owner's token, and it says so.
      await until('the resumed projector found its lease lost', () => frozen.lines.slice(logged).some((line) => /projection lease lost/.test(line)), 5_000);
      await sleep(1_000);
      expect(await readersView(store), 'the read models after the frozen projector resumed').to.deep.equal(before);
    } finally {
      for (const projector of projectors) projector.child.kill('SIGCONT');
      writing = false;
      await store.close();
    }
    await expectCleanRebuild('after a projector was frozen past its lease');
  });

  it('both read APIs serve the transparency log from MongoDB: one checkpoint of the whole history, signed by one log key, and its proofs', async function () {
    const target = await head();
    const events = openSqliteEventStore(join(dataDir, 'events.sqlite3'));
    const size = await events.countAfter!(0).finally(() => events.close());
    const started = performance.now();
    let notes: string[] = [];
    // The projectors build the tiles; every replica signs what they hold, and the store keeps one note per size.
    for (;;) {
      notes = await Promise.all(apis.map(async ({ url }) => (await get(url, '/.well-known/transparency/checkpoint')).text));
      if (notes.every((note) => note.split('\n')[1] === String(size)) && notes[0] === notes[1]) break;
      if (performance.now() - started > 30_000) throw new Error(`no common checkpoint of ${size} leaves (head ${target}): ${JSON.stringify(notes)}`);
      await sleep(50);
    }
    const keys = await Promise.all(apis.map(async ({ url }) => (await get(url, '/.well-known/transparency/key')).text));
    expect(keys[0]).to.equal(keys[1]);
    const proof = (await get(apis[1]!.url, `/api/public/transparency/inclusion?position=${target}&tree_size=${size}`)).json<{ leaf_index: number; root: string }>();
    expect(proof).to.deep.include({ leaf_index: size - 1, root: notes[0]!.split('\n')[2] });
  });

  it('a restarted API serves at once from MongoDB, with no replay at start', async function () {
    const target = await head();
    await apis[1]!.process.stop();
    const started = performance.now();
    apis[1] = await startApi();
    const first = await get(apis[1].url, '/api/public/status');
    const ms = performance.now() - started;
    expect(first.status).to.equal(200);
    expect(first.json<{ read_model: { position: number } }>().read_model.position).to.equal(target);
    const catalogue = (await get(apis[1].url, '/api/public/catalogue')).json<{ total: number }>();
    expect(catalogue.total).to.equal(2);
    console.log(`      restarted API answered at position ${target} ${ms.toFixed(0)} ms after its start (process start included)`);
  });
});
