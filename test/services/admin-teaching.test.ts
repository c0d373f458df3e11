/**
 * The admin API teaches (issue 44, item 5): a refusal names the shape a field takes, prices are JSON numbers (a
 * string is refused with how to write it), a third decimal is refused in the list shape of every 422, a manufacture
 * year after the current one is refused by the service's own clock, and a body not sent as JSON is refused with
 * the header to send. Nothing refused appends anything.
 */
import { expect } from 'chai';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { createAdminApp } from '../../services/admin/admin-app.ts';
import { createCommandService } from '../../services/write/command-service.ts';
import { importCatalogue } from '../../services/import/import-catalogue.ts';
import { aWatch } from '../unit/services/support/builders.ts';
import { tinyCatalogue } from './support/tiny-catalogue.ts';

const KEY = 'both-key-3-7c2a9e4b1d6f8035c7e1a9b3d5';
/** The service's clock in these tests: mid-2026, so 2026 is the current year everywhere and 2027 has begun nowhere. */
const NOW = new Date('2026-06-15T12:00:00Z');

interface Issue { type: string; loc: unknown[]; msg: string; input: unknown; ctx?: Record<string, unknown> }

describe('admin API: refusals that teach (issue 44, item 5)', () => {
  let store: EventStore;
  let close: () => Promise<void>;
  let base: string;

  before(async () => {
    store = openSqliteEventStore(':memory:');
    const service = createCommandService(store, { clock: () => NOW });
    await importCatalogue(service, tinyCatalogue());
    const app = createAdminApp(service, { ADMIN_API_KEYS: `${KEY}:catalogue,${KEY}:serials`, ADMIN_AUTH_FAILURES_PER_MINUTE: 100 }, createLogger('silent', 'test'));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await store.close();
    };
  });
  after(() => close());

  function send(method: string, path: string, body: string, contentType = 'application/json') {
    return fetch(`${base}${path}`, { method, body, headers: { authorization: `Bearer ${KEY}`, 'content-type': contentType } });
  }

  /** A request with a body and no Content-Type at all, which fetch never sends (it types a string as text/plain). */
  function sendUntyped(method: string, path: string, body: string): Promise<{ status: number; json: unknown }> {
    return new Promise((resolve, reject) => {
      const sent = request(`${base}${path}`, { method, headers: { authorization: `Bearer ${KEY}`, 'content-length': Buffer.byteLength(body) } }, (answer) => {
        let text = '';
        answer.setEncoding('utf8').on('data', (chunk: string) => { text += chunk; }).on('end', () => resolve({ status: answer.statusCode ?? 0, json: JSON.parse(text) }));
      });
      sent.on('error', reject);
      sent.end(body);
    });
  }
  const call = (method: string, path: string, body: unknown) => send(method, path, JSON.stringify(body));

  /** The answer's status and issues, and that nothing was appended. */
  async function refused(answer: Promise<Response>): Promise<{ status: number; detail: Issue[] }> {
    const head = await store.headPosition();
    const response = await answer;
    const { detail } = (await response.json()) as { detail: Issue[] };
    expect(await store.headPosition(), 'nothing appended').to.equal(head);
    return { status: response.status, detail };
  }

  const { price_cents: _cents, ...described } = aWatch({ reference: 'AUR-LU-010' });

  it('refuses a price sent as a string, saying how to write it as a JSON number: "11000", "12,5", "12 500"', async () => {
    const expected = 'a JSON number above 0 and at most 100000000 (euros, at most two decimals)';
    for (const [sent, written] of [['11000', 'write 11000 without quotes'], ['12,5', 'write 12.5 without quotes, with a point before the decimals'],
      ['12 500', 'write 12500 without quotes or spaces']] as const) {
      const { status, detail } = await refused(call('PUT', '/admin/watches/AUR-LU-001/price', { price_eur: sent }));
      expect(status, sent).to.equal(422);
      expect(detail, sent).to.deep.equal([{
        type: 'float_type', loc: ['body', 'price_eur'], msg: `Input should be a valid number; expected ${expected}, not a string: ${written}`,
        input: sent, ctx: { expected },
      }]);
    }
    const published = await refused(call('POST', '/admin/watches', { ...described, price_eur: '11000' }));
    expect(published.status).to.equal(422);
    expect(published.detail.map((found) => [found.type, found.loc, found.msg])).to.deep.equal([
      ['float_type', ['body', 'price_eur'], `Input should be a valid number; expected ${expected}, not a string: write 11000 without quotes`],
    ]);
  });

  it('refuses a whole number sent as a string too: a year is a JSON number', async () => {
    const { status, detail } = await refused(call('POST', '/admin/serials', { serial: 'AUR-2024-9001', reference: 'AUR-LU-001', year: '2024' }));
    expect(status).to.equal(422);
    expect(detail).to.deep.equal([{
      type: 'int_type', loc: ['body', 'year'], msg: 'Input should be a valid integer; expected a whole JSON number, not a string: write 2024 without quotes',
      input: '2024', ctx: { expected: 'a whole JSON number' },
    }]);
  });

  it('names the shape a field takes: a wrong type, a missing field, a property the object does not have', async () => {
    const { name: _name, ...nameless } = described;
    const { status, detail } = await refused(call('POST', '/admin/watches', {
      ...nameless, price_eur: 100, short_description: 'A thin dress watch', images: { path: '/a.jpg' },
      manufacture: { ...described.manufacture, country: 'CH' },
    }));
    expect(status).to.equal(422);
    const said = Object.fromEntries(detail.map((found) => [found.loc.slice(1).join('.'), [found.type, found.msg]]));
    expect(said).to.deep.equal({
      name: ['missing', 'Field required; expected an object {en, fr}'],
      short_description: ['dict_type', 'Input should be a valid dictionary; expected an object {en, fr}'],
      images: ['list_type', 'Input should be a valid list; expected a list of at least 1 item, each an object {path, alt, role}'],
      'manufacture.country': ['extra_forbidden', 'Extra inputs are not permitted; expected an object {name, origin, workshop?}'],
    });
  });

  it('refuses a third decimal in the list shape of every 422, at the field', async () => {
    for (const [method, path, body] of [
      ['PUT', '/admin/watches/AUR-LU-001/price', { price_eur: 10.005 }],
      ['POST', '/admin/watches', { ...described, price_eur: 10.005 }],
    ] as const) {
      const { status, detail } = await refused(call(method, path, body));
      expect([status, detail], path).to.deep.equal([422, [{
        type: 'decimal_max_places', loc: ['body', 'price_eur'], msg: 'Decimal input should have no more than 2 decimal places', input: 10.005,
        ctx: { decimal_places: 2 },
      }]]);
    }
  });

  it('refuses a price above the highest a watch may have at the field, in euros', async () => {
    const { status, detail } = await refused(call('PUT', '/admin/watches/AUR-LU-001/price', { price_eur: 100_000_000.01 }));
    expect(status).to.equal(422);
    expect(detail.map((found) => [found.type, found.loc, found.msg])).to.deep.equal([
      ['less_than_equal', ['body', 'price_eur'], 'Input should be less than or equal to 100000000'],
    ]);
  });

  it('refuses a manufacture year after the current one by the service\'s clock, in the list shape, and takes the current year', async () => {
    const { status, detail } = await refused(call('POST', '/admin/serials', { serial: 'AUR-2027-0001', reference: 'AUR-LU-001', year: 2027 }));
    const error = 'manufacture year 2027 is in the future: by the service\'s clock at registration the latest year begun anywhere is 2026';
    expect([status, detail]).to.deep.equal([422, [{ type: 'value_error', loc: ['body'], msg: `Value error, ${error}`, input: null, ctx: { error } }]]);
    const current = await call('POST', '/admin/serials', { serial: 'AUR-2026-0001', reference: 'AUR-LU-001', year: 2026 });
    expect(current.status).to.equal(201);
  });

  it('refuses with 415 a body not sent as JSON, naming the header to send, and reads nothing of it', async () => {
    const hint = 'Unsupported Media Type: send the body as JSON with the header Content-Type: application/json';
    const head = await store.headPosition();
    for (const contentType of ['application/x-www-form-urlencoded', 'text/plain;charset=UTF-8']) {
      const answer = await send('PUT', '/admin/watches/AUR-LU-001/price', '{"price_eur": 13000}', contentType);
      expect([answer.status, await answer.json()], contentType).to.deep.equal([415, { detail: `${hint} (this request has Content-Type: ${contentType})` }]);
    }
    const untyped = await sendUntyped('POST', '/admin/serials', '{"serial": "AUR-2024-9002", "reference": "AUR-LU-001", "year": 2024}');
    expect(untyped).to.deep.equal({ status: 415, json: { detail: `${hint} (this request has no Content-Type)` } });
    expect(await store.headPosition()).to.equal(head);
    const json = await send('PUT', '/admin/watches/AUR-LU-001/price', '{"price_eur": 13000}', 'application/json; charset=utf-8');
    expect(json.status).to.equal(200);
    // A route that reads no body needs no Content-Type.
    const withdrawn = await fetch(`${base}/admin/watches/AUR-LU-002`, { method: 'DELETE', headers: { authorization: `Bearer ${KEY}` } });
    expect(withdrawn.status).to.equal(200);
  });
});
