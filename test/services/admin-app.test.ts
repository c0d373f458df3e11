import { expect } from 'chai';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { createAdminApp } from '../../services/admin/admin-app.ts';
import { createCommandService } from '../../services/write/command-service.ts';
import { tinyCatalogue } from './support/tiny-catalogue.ts';
import { readable } from '../support/readable-events.ts';

const CAT = 'cat-key-1-4f9e2d7c1b8a6053e7d9c2b1a0';
const SER = 'ser-key-2-9b3e5a7d1c0f2468ace13579bd';
const BOTH = 'both-key-3-7c2a9e4b1d6f8035c7e1a9b3d5';
const KEYS = `${CAT}:catalogue,${SER}:serials,${BOTH}:catalogue,${BOTH}:serials`;

describe('admin API', () => {
  let store: EventStore;
  let server: Server;
  let base: string;

  function call(method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
    return fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
  }
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

  before(async () => {
    store = openSqliteEventStore(':memory:');
    const service = createCommandService(store);
    const app = createAdminApp(service, { ADMIN_API_KEYS: KEYS, ADMIN_AUTH_FAILURES_PER_MINUTE: 100 }, createLogger('silent', 'test'));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const imported = await call('POST', '/admin/import', bearer(CAT), tinyCatalogue());
    expect(imported.status).to.equal(200);
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await store.close();
  });

  describe('refuses without writing anything', () => {
    const register = { serial: 'AUR-2024-5555', reference: 'AUR-LU-001', year: 2024 };
    const cases: [string, Record<string, string>, number][] = [
      ['no key', {}, 401],
      ['an unknown key', bearer('not-a-key'), 401],
      ['a key of another case', bearer(SER.toUpperCase()), 401],
      ['a very long key', bearer('x'.repeat(8_000)), 401],
      ['a prefix of a real key', { 'x-api-key': 'ser-key' }, 401],
      ['a key without the serials scope', bearer(CAT), 403],
    ];
    for (const [what, headers, status] of cases) {
      it(`answers ${status} to ${what}`, async () => {
        const head = await store.headPosition();
        const response = await call('POST', '/admin/serials', headers, register);
        expect(response.status).to.equal(status);
        expect(((await response.json()) as { detail: string }).detail).to.be.a('string').and.not.include(headers.authorization ?? '#');
        expect(await store.headPosition()).to.equal(head);
      });
    }

    it('answers 403 to a serials key on a catalogue route', async () => {
      const head = await store.headPosition();
      const response = await call('DELETE', '/admin/watches/AUR-LU-002', { 'x-api-key': SER });
      expect(response.status).to.equal(403);
      expect(await store.headPosition()).to.equal(head);
    });

    it('answers 413 to a body above 16 KiB', async () => {
      const response = await call('PUT', '/admin/watches/AUR-LU-001/price', bearer(CAT), { price_eur: 1, pad: 'x'.repeat(17_000) });
      expect(response.status).to.equal(413);
    });
  });

  it('registers a serial, reports it stolen and recovered, answering each appended position in the body and in X-Position', async () => {
    const registered = await call('POST', '/admin/serials', { 'x-api-key': SER }, { serial: 'aur-2024-6666', reference: 'aur-lu-001', year: 2024 });
    expect(registered.status).to.equal(201);
    const { position } = (await registered.json()) as { position: number };
    const [event] = readable(await store.readStream('serial-AUR-2024-6666'));
    expect(event?.position).to.equal(position);
    expect(registered.headers.get('x-position'), 'the header says the body\'s position').to.equal(String(position));
    // The serials key is the second key listed: the history names it by that id, never by anything of the key.
    expect(event?.metadata.actor).to.equal('admin-api:key-2');

    const stolen = await call('POST', '/admin/serials/AUR-2024-6666/stolen', bearer(BOTH));
    expect(stolen.status).to.equal(200);
    expect(stolen.headers.get('x-position')).to.equal(String(((await stolen.json()) as { position: number }).position));
    const recovered = await call('POST', '/admin/serials/AUR-2024-6666/recovered', bearer(BOTH));
    expect(((await recovered.json()) as { position: number }).position).to.equal(await store.headPosition());
    expect(recovered.headers.get('x-position')).to.equal(String(await store.headPosition()));
  });

  it('maps refusals to 404, 409 and 422 with their message', async () => {
    const unknown = await call('PUT', '/admin/watches/FOO-1/price', bearer(CAT), { price_eur: 100 });
    expect([unknown.status, await unknown.json()]).to.deep.equal([404, { detail: 'unknown watch FOO-1' }]);
    const twice = await call('POST', '/admin/serials', bearer(SER), { serial: 'AUR-2024-000001', reference: 'AUR-LU-001', year: 2024 });
    expect([twice.status, await twice.json()]).to.deep.equal([409, { detail: 'serial AUR-2024-000001 is already registered' }]);
    const badStock = await call('PUT', '/admin/watches/AUR-LU-001/stock', bearer(CAT), { stock_status: 'plenty' });
    expect(badStock.status).to.equal(422);
    const badPrice = await call('PUT', '/admin/watches/AUR-LU-001/price', bearer(CAT), { price_eur: 10.005 });
    expect(badPrice.status).to.equal(422);
  });

  it('refuses a bad body in the contract\'s shape: every field at once, the allowed values, the extra property, what each takes, no event name', async () => {
    const head = await store.headPosition();
    const serial = await call('POST', '/admin/serials', bearer(SER), { serial: 'bad serial!', reference: 'AUR-LU-001', year: '2024x', colour: 'red' });
    expect(serial.status).to.equal(422);
    const text = await serial.text();
    expect(text).not.to.include('SerialRegistered');
    expect(JSON.parse(text)).to.deep.equal({
      detail: [
        { type: 'string_pattern_mismatch', loc: ['body', 'serial'], msg: "String should match pattern '^[A-Za-z0-9-]{4,32}$'", input: 'bad serial!', ctx: { pattern: '^[A-Za-z0-9-]{4,32}$' } },
        // A number is a JSON number: the admin API writes events, so it reads JSON strictly (issue 44, item 5).
        {
          type: 'int_type', loc: ['body', 'year'], msg: 'Input should be a valid integer; expected a whole JSON number, not a string', input: '2024x',
          ctx: { expected: 'a whole JSON number' },
        },
        {
          type: 'extra_forbidden', loc: ['body', 'colour'], msg: 'Extra inputs are not permitted; expected an object {serial, reference, year}', input: 'red',
          ctx: { expected: 'an object {serial, reference, year}' },
        },
      ],
    });
    const stock = await call('PUT', '/admin/watches/AUR-LU-001/stock', bearer(CAT), { stock_status: 'plenty' });
    expect(await stock.json()).to.deep.equal({
      detail: [{
        type: 'literal_error', loc: ['body', 'stock_status'], msg: "Input should be 'in_stock', 'low_stock', 'out_of_stock' or 'made_to_order'",
        input: 'plenty', ctx: { expected: "'in_stock', 'low_stock', 'out_of_stock' or 'made_to_order'" },
      }],
    });
    const malformed = await call('PUT', '/admin/watches/AUR-LU-001/price', bearer(CAT), '{"price_eur": ');
    expect(malformed.status).to.equal(422);
    expect(((await malformed.json()) as { detail: { type: string }[] }).detail.map((found) => found.type)).to.deep.equal(['json_invalid']);
    expect(await store.headPosition()).to.equal(head);
  });

  it('refuses a bad catalogue file in the contract\'s shape: each problem at its place in the body, then what spans entries', async () => {
    const head = await store.headPosition();
    const file = tinyCatalogue() as unknown as { watches: Record<string, unknown>[] };
    file.watches[1]!['stock_status'] = 'plenty';
    file.watches[0]!['colour'] = 'red';
    const shaped = await call('POST', '/admin/import', bearer(CAT), file);
    expect(shaped.status).to.equal(422);
    const { detail } = (await shaped.json()) as { detail: { type: string; loc: unknown[]; msg: string }[] };
    expect(detail.map((found) => [found.type, found.loc])).to.have.deep.members([
      ['extra_forbidden', ['body', 'watches', 0, 'colour']],
      ['literal_error', ['body', 'watches', 1, 'stock_status']],
    ]);
    const twice = tinyCatalogue();
    twice.serials.push({ ...twice.serials[0]! });
    const spanning = await call('POST', '/admin/import', bearer(CAT), twice);
    expect(await spanning.json()).to.deep.equal({
      detail: [{
        type: 'value_error', loc: ['body'], msg: 'Value error, serial AUR-2024-000001 appears more than once', input: null,
        ctx: { error: 'serial AUR-2024-000001 appears more than once' },
      }],
    });
    expect(await store.headPosition()).to.equal(head);
  });

  it('refuses a catalogue file the deciders would refuse as a whole, each problem at its place, and appends nothing of it', async () => {
    const head = await store.headPosition();
    const file = tinyCatalogue();
    file.collections.push({ ...file.collections[0]!, code: 'soleil' });
    file.watches[1]!.name = { en: 'Lumière Moon', fr: ' ' };
    file.serials[0]!.manufacture_year = 2200;
    // The latest year begun anywhere is the year at UTC+14 (docs/api.md, "Refusals of the decision").
    const latest = new Date(Date.now() + 14 * 3_600_000).getUTCFullYear();
    const blank = await call('POST', '/admin/import', bearer(CAT), file);
    expect(blank.status).to.equal(422);
    const { detail } = (await blank.json()) as { detail: { type: string; loc: unknown[]; msg: string }[] };
    expect(detail.map((found) => [found.type, found.loc, found.msg])).to.deep.equal([
      ['value_error', ['body'], 'Value error, watches[1].name.fr: Text is blank once trimmed; expected a text with a character other than whitespace'],
      ['value_error', ['body'], `Value error, serials[0].manufacture_year: 2200 is in the future: the latest year begun anywhere is ${latest}; expected a whole year from 1800 to ${latest}`],
    ]);
    // What only the store can tell: the file's new collection comes first, its watch of an unknown collection later.
    const unknown = tinyCatalogue();
    unknown.collections.push({ ...unknown.collections[0]!, code: 'soleil' });
    unknown.watches.push({ ...unknown.watches[0]!, reference: 'AUR-SO-002', collection: 'nowhere' });
    const refused = await call('POST', '/admin/import', bearer(CAT), unknown);
    expect(refused.status).to.equal(404);
    expect(await refused.json()).to.deep.equal({ detail: 'watch AUR-SO-002: unknown collection nowhere' });
    expect(await store.headPosition(), 'nothing appended').to.equal(head);
  });

  it('answers a wrong method on a known path with 405 in JSON, naming the allowed ones', async () => {
    const response = await call('GET', '/admin/serials', bearer(SER));
    expect(response.status).to.equal(405);
    expect(response.headers.get('content-type')).to.match(/^application\/json/);
    expect(response.headers.get('allow')).to.include('POST');
    expect(await response.json()).to.deep.equal({ detail: 'Method Not Allowed' });
  });

  it('changes price and stock, withdraws a watch, and re-imports the file without appending', async () => {
    const price = await call('PUT', '/admin/watches/AUR-LU-001/price', bearer(CAT), { price_eur: 13_000.5 });
    expect(price.status).to.equal(200);
    const events = readable(await store.readStream('watch-AUR-LU-001'));
    expect(events.at(-1)?.data).to.deep.include({ price_cents: 1_300_050 });
    expect((await call('PUT', '/admin/watches/AUR-LU-001/stock', bearer(CAT), { stock_status: 'low_stock' })).status).to.equal(200);
    expect((await call('DELETE', '/admin/watches/AUR-LU-002', bearer(CAT))).status).to.equal(200);

    const head = await store.headPosition();
    const file = tinyCatalogue();
    file.watches[0] = { ...file.watches[0]!, price_cents: 1_300_050, stock_status: 'low_stock' };
    const again = await call('POST', '/admin/import', bearer(CAT), file);
    expect(await again.json()).to.deep.include({ commands: 0, position: head });
    expect(again.headers.get('x-position'), 'an import answers the position it brought the store to').to.equal(String(head));
    expect(await store.headPosition()).to.equal(head);
  });

  it('answers 429 without checking the key once a client failed too often in a minute, and counts failures (issue 17, finding 3)', async () => {
    const counted: string[] = [];
    const app = createAdminApp(createCommandService(store), { ADMIN_API_KEYS: KEYS, ADMIN_AUTH_FAILURES_PER_MINUTE: 3 }, createLogger('silent', 'test'), {
      authMetrics: { failed: (outcome) => counted.push(outcome) },
    });
    const throttled = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => throttled.once('listening', resolve));
    try {
      const at = `http://127.0.0.1:${(throttled.address() as AddressInfo).port}`;
      const post = (key: string) => fetch(`${at}/admin/serials/AUR-2024-000001/stolen`, { method: 'POST', headers: bearer(key) });
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await post(`guess-${i}`)).status);
      expect(statuses).to.deep.equal([401, 401, 401, 429]);
      const valid = await post(SER);
      expect(valid.status, 'a right key is not even checked').to.equal(429);
      expect(Number(valid.headers.get('retry-after'))).to.be.within(1, 60);
      expect(await valid.json()).to.deep.equal({ detail: 'too many failed authentications: try again later' });
      expect(counted).to.deep.equal(['refused', 'refused', 'refused', 'throttled', 'throttled']);
    } finally {
      throttled.closeAllConnections();
      await new Promise((resolve) => throttled.close(resolve));
    }
  });
});
