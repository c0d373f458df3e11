/**
 * The admin API under hostile credentials (issue 7, item 6), on the real `services/main.ts` process with its real
 * logger at the most verbose level: no key, wrong keys, near misses of real keys, keys of the wrong scope and very
 * long keys, in every header form, are all refused with 401/403 and write nothing; and no key, valid or not, ever
 * appears in the process's logs or in the event history.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import fc from 'fast-check';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { createCommandService } from '../../services/write/command-service.ts';
import { importCatalogue } from '../../services/import/import-catalogue.ts';
import { tinyCatalogue } from '../services/support/tiny-catalogue.ts';
import { spawnTs, type KillableChild } from '../support/child-process.ts';
import { send } from '../support/http.ts';
import { freePort } from '../support/redis-server.ts';

const SERVICES_MAIN = fileURLToPath(new URL('../../services/main.ts', import.meta.url));
const CATALOGUE_KEY = 'cat-Secret-7f3a9c1e-5d2b8e0a4c6f1937';
const SERIALS_KEY = 'ser-Secret-52b8d04a-e6a1c3f5b7d90284';

interface Route { method: string; path: string; body: unknown; scope: 'catalogue' | 'serials' }
const ROUTES: Route[] = [
  { method: 'POST', path: '/admin/serials', body: { serial: 'AUR-2024-7777', reference: 'AUR-LU-001', year: 2024 }, scope: 'serials' },
  { method: 'POST', path: '/admin/serials/AUR-2024-000001/stolen', body: {}, scope: 'serials' },
  { method: 'PUT', path: '/admin/watches/AUR-LU-001/price', body: { price_eur: 1 }, scope: 'catalogue' },
  { method: 'DELETE', path: '/admin/watches/AUR-LU-002', body: undefined, scope: 'catalogue' },
];

/** A presented key that is not the route's key: random, a near miss of a real key, or very long. */
const wrongKey = fc.oneof(
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 40 }).filter((k) => k.trim() !== '' && ![CATALOGUE_KEY, SERIALS_KEY].includes(k.trim())),
  fc.constantFrom(CATALOGUE_KEY, SERIALS_KEY).chain((key) => fc.constantFrom(
    key.slice(0, -1), `${key}x`, key.toUpperCase(), key.toLowerCase(), `${key}${key}`, key.replace('-', '_'),
  )),
  fc.integer({ min: 1_000, max: 8_000 }).map((n) => `${SERIALS_KEY}${'k'.repeat(n)}`),
);
const header = (key: string) => fc.constantFrom(
  { authorization: `Bearer ${key}` }, { authorization: `bearer ${key}` }, { 'x-api-key': key },
  { authorization: `Basic ${Buffer.from(`admin:${key}`).toString('base64')}` }, { authorization: key },
);

describe('admin API against hostile credentials, with the real process and logger', function () {
  this.timeout(60_000);
  let dir: string;
  let eventsFile: string;
  let child: KillableChild;
  let base: string;
  const presented = new Set<string>([CATALOGUE_KEY, SERIALS_KEY]);

  const head = async () => {
    const store = openSqliteEventStore(eventsFile);
    try {
      return await store.headPosition();
    } finally {
      await store.close();
    }
  };
  const call = (route: Route, headers: Record<string, string>) => send(base, route.path, {
    method: route.method, headers: { 'content-type': 'application/json', ...headers },
    ...(route.body === undefined ? {} : { body: JSON.stringify(route.body) }),
  });

  before(async function () {
    dir = mkdtempSync(join(tmpdir(), 'watchcat-admin-keys-'));
    eventsFile = join(dir, 'events.sqlite3');
    const store = openSqliteEventStore(eventsFile);
    await importCatalogue(createCommandService(store), tinyCatalogue());
    await store.close();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    child = spawnTs(SERVICES_MAIN, [], {
      // Its health port chosen by the system: the default one may still be held by another test's process.
      ADMIN_PORT: String(port), HEALTH_PORT: '0', HOST: '127.0.0.1', DATA_DIR: dir, LOG_LEVEL: 'trace',
      ADMIN_API_KEYS: `${CATALOGUE_KEY}:catalogue,${SERIALS_KEY}:serials`,
      // The fuzz below is one client making 150 failed attempts: the failure throttle has its own test.
      ADMIN_AUTH_FAILURES_PER_MINUTE: '100000',
    });
    const deadline = Date.now() + 30_000;
    while (!child.lines.some((line) => line.includes('admin API listening'))) {
      if (Date.now() > deadline || child.child.exitCode !== null) throw new Error(`services did not start: ${child.lines.join(' | ')}`);
      await sleep(50);
    }
  });
  after(async function () {
    if (child.child.exitCode === null) await child.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses every wrong, near-miss, long or wrong-scope key with 401/403 and writes nothing (seeded)', async function () {
    const before = await head();
    const request = fc.record({
      route: fc.constantFrom(...ROUTES),
      credentials: fc.oneof(
        fc.constant({}),
        wrongKey.chain(header),
        fc.constantFrom(...ROUTES).chain((r) => header(r.scope === 'serials' ? CATALOGUE_KEY : SERIALS_KEY).map((h) => ({ wrongScopeFor: r, h }))),
      ),
    });
    await fc.assert(fc.asyncProperty(request, async ({ route: drawn, credentials }) => {
      const wrongScope = 'wrongScopeFor' in credentials;
      const route = wrongScope ? credentials.wrongScopeFor : drawn;
      const headers: Record<string, string> = wrongScope ? credentials.h : credentials;
      for (const value of Object.values(headers)) presented.add(value);
      const answer = await call(route, headers);
      const canonical = 'x-api-key' in headers || /^bearer /i.test(headers['authorization'] ?? '');
      const expected = wrongScope && canonical ? 403 : 401;
      expect(answer.status, `${route.method} ${route.path} ${JSON.stringify(headers).slice(0, 80)}: ${answer.text}`).to.equal(expected);
    }), { seed: Number(process.env.FUZZ_SEED ?? 6), numRuns: 150 });
    expect(await head(), 'a refused request wrote something').to.equal(before);
  });

  it('never writes a key into its logs or the history, valid or not', async function () {
    // Successful calls too: their log lines and events name the caller without its key.
    expect((await call(ROUTES[0]!, { authorization: `Bearer ${SERIALS_KEY}` })).status).to.equal(201);
    expect((await call(ROUTES[2]!, { 'x-api-key': CATALOGUE_KEY, 'x-request-id': 'price-1' })).status).to.equal(200);
    child.child.kill('SIGTERM');
    expect(await child.exited).to.equal(0);
    expect(child.lines.filter((line) => line.includes('admin request')).length, 'the requests were logged').to.be.above(10);
    const store = openSqliteEventStore(eventsFile);
    const history = JSON.stringify(await store.readAll({ after: 0, limit: 10_000 }));
    await store.close();
    const keys = [...presented].flatMap((value) => value.split(' ')).filter((part) => part.length >= 8 && part !== 'admin-api');
    for (const key of keys) {
      const leaked = child.lines.find((line) => line.includes(key));
      expect(leaked, `key ${key.slice(0, 12)}... in the logs`).to.equal(undefined);
      expect(history.includes(key), `key ${key.slice(0, 12)}... in the history`).to.equal(false);
    }
  });

  it('refuses to start with a short or placeholder key, in one line naming the entries and not the keys (issue 17, finding 3)', async function () {
    const weak = spawnTs(SERVICES_MAIN, [], {
      ADMIN_PORT: '0', HOST: '127.0.0.1', DATA_DIR: dir, LOG_LEVEL: 'info', ADMIN_API_KEYS: `a:catalogue,${SERIALS_KEY}:serials,change-me-serials-0000000000000000:serials`,
    });
    expect(await weak.exited, 'the exit code of a bad setting (issue 29, item 4)').to.equal(2);
    const fatal = weak.lines.filter((line) => line.includes('ADMIN_API_KEYS'));
    expect(fatal, weak.lines.join('\n')).to.have.length(1);
    expect(fatal[0]).to.include('entry 1 has a key of 1 characters, fewer than 32; entry 3 has a placeholder key');
    expect(fatal[0]).not.to.include('change-me-serials');
    expect(weak.lines.some((line) => line.includes('listening'))).to.equal(false);
  });
});
