import { expect } from 'chai';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { createAdminApp } from '../../services/admin/admin-app.ts';
import { createCommandService } from '../../services/command-service.ts';
import { tinyCatalogue } from './support/tiny-catalogue.ts';

const KEYS = 'cat-key-1:catalogue,ser-key-2:serials,both-key-3:catalogue,both-key-3:serials';

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
    const app = createAdminApp(service, { ADMIN_API_KEYS: KEYS }, createLogger('silent', 'test'));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const imported = await call('POST', '/admin/import', bearer('cat-key-1'), tinyCatalogue());
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
      ['a key of another case', bearer('SER-KEY-2'), 401],
      ['a very long key', bearer('x'.repeat(8_000)), 401],
      ['a prefix of a real key', { 'x-api-key': 'ser-key' }, 401],
      ['a key without the serials scope', bearer('cat-key-1'), 403],
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
      const response = await call('DELETE', '/admin/watches/AUR-LU-002', { 'x-api-key': 'ser-key-2' });
      expect(response.status).to.equal(403);
      expect(await store.headPosition()).to.equal(head);
    });

    it('answers 413 to a body above 16 KiB', async () => {
      const response = await call('PUT', '/admin/watches/AUR-LU-001/price', bearer('cat-key-1'), { price_eur: 1, pad: 'x'.repeat(17_000) });
      expect(response.status).to.equal(413);
    });
  });

  it('registers a serial, reports it stolen and recovered, answering each appended position', async () => {
    const registered = await call('POST', '/admin/serials', { 'x-api-key': 'ser-key-2' }, { serial: 'aur-2024-6666', reference: 'aur-lu-001', year: 2024 });
    expect(registered.status).to.equal(201);
    const { position } = (await registered.json()) as { position: number };
    const [event] = await store.readStream('serial-AUR-2024-6666');
    expect(event?.position).to.equal(position);
    expect(event?.metadata.actor).to.match(/^admin-api:[0-9a-f]{12}$/);

    const stolen = await call('POST', '/admin/serials/AUR-2024-6666/stolen', bearer('both-key-3'));
    expect(stolen.status).to.equal(200);
    const recovered = await call('POST', '/admin/serials/AUR-2024-6666/recovered', bearer('both-key-3'));
    expect(((await recovered.json()) as { position: number }).position).to.equal(await store.headPosition());
  });

  it('maps refusals to 404, 409 and 422 with their message', async () => {
    const unknown = await call('PUT', '/admin/watches/FOO-1/price', bearer('cat-key-1'), { price_eur: 100 });
    expect([unknown.status, await unknown.json()]).to.deep.equal([404, { detail: 'unknown watch FOO-1' }]);
    const twice = await call('POST', '/admin/serials', bearer('ser-key-2'), { serial: 'AUR-2024-000001', reference: 'AUR-LU-001', year: 2024 });
    expect([twice.status, await twice.json()]).to.deep.equal([409, { detail: 'serial AUR-2024-000001 is already registered' }]);
    const badStock = await call('PUT', '/admin/watches/AUR-LU-001/stock', bearer('cat-key-1'), { stock_status: 'plenty' });
    expect(badStock.status).to.equal(422);
    const badPrice = await call('PUT', '/admin/watches/AUR-LU-001/price', bearer('cat-key-1'), { price_eur: 10.005 });
    expect(badPrice.status).to.equal(422);
  });

  it('changes price and stock, withdraws a watch, and re-imports the file without appending', async () => {
    const price = await call('PUT', '/admin/watches/AUR-LU-001/price', bearer('cat-key-1'), { price_eur: 13_000.5 });
    expect(price.status).to.equal(200);
    const events = await store.readStream('watch-AUR-LU-001');
    expect(events.at(-1)?.data).to.deep.include({ price_cents: 1_300_050 });
    expect((await call('PUT', '/admin/watches/AUR-LU-001/stock', bearer('cat-key-1'), { stock_status: 'low_stock' })).status).to.equal(200);
    expect((await call('DELETE', '/admin/watches/AUR-LU-002', bearer('cat-key-1'))).status).to.equal(200);

    const head = await store.headPosition();
    const file = tinyCatalogue();
    file.watches[0] = { ...file.watches[0]!, price_cents: 1_300_050, stock_status: 'low_stock' };
    const again = await call('POST', '/admin/import', bearer('cat-key-1'), file);
    expect(await again.json()).to.deep.include({ commands: 0, position: head });
    expect(await store.headPosition()).to.equal(head);
  });
});
