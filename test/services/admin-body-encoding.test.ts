/**
 * The admin API writes what it reads into the catalogue: a body's text must be the text the client meant. JSON is
 * UTF-8 (docs/api.md, "The admin API": bodies are JSON), and a body in another encoding (an editor's Latin-1 save,
 * a client that declares `charset=iso-8859-1`) used to be decoded as UTF-8 regardless, each accented letter stored as
 * U+FFFD and served so by the public API. It is refused instead, and nothing is appended.
 */
import { expect } from 'chai';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { createAdminApp } from '../../services/admin/admin-app.ts';
import { createCommandService } from '../../services/write/command-service.ts';
import { importCatalogue } from '../../services/import/import-catalogue.ts';
import { tinyCatalogue } from './support/tiny-catalogue.ts';

const KEY = 'cat-key-1-4f9e2d7c1b8a6053e7d9c2b1a0';

/** `{"name": {"en": "Lumière", "fr": "Lumière"}}` with its `è` as one Latin-1 byte (0xE8), not UTF-8. */
const LATIN1_REVISION = Buffer.concat([
  Buffer.from('{"name": {"en": "Lumi'), Buffer.from([0xe8]), Buffer.from('re", "fr": "Lumi'), Buffer.from([0xe8]), Buffer.from('re"}}'),
]);

describe('admin API: bodies are UTF-8', () => {
  let store: EventStore;
  let server: Server;
  let base: string;

  before(async () => {
    store = openSqliteEventStore(':memory:');
    const service = createCommandService(store);
    await importCatalogue(service, tinyCatalogue());
    server = createAdminApp(service, { ADMIN_API_KEYS: `${KEY}:catalogue`, ADMIN_AUTH_FAILURES_PER_MINUTE: 100 }, createLogger('silent', 'test'))
      .listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await store.close();
  });

  const patch = (body: Buffer | string, contentType: string) => fetch(`${base}/admin/watches/AUR-LU-001`, {
    method: 'PATCH', headers: { 'content-type': contentType, authorization: `Bearer ${KEY}` }, body,
  });

  it('refuses a body whose bytes are not UTF-8 with 400, and appends nothing', async () => {
    const head = await store.headPosition();
    const response = await patch(LATIN1_REVISION, 'application/json');
    expect(response.status).to.equal(400);
    expect(await response.json()).to.deep.equal({ detail: 'Bad Request: the body is not valid UTF-8; send JSON encoded in UTF-8' });
    expect(await store.headPosition()).to.equal(head);
  });

  it('refuses a body declared in another charset with 415, and appends nothing', async () => {
    const head = await store.headPosition();
    for (const contentType of ['application/json; charset=iso-8859-1', 'application/json;charset="UTF-16"']) {
      const response = await patch(LATIN1_REVISION, contentType);
      expect(response.status, contentType).to.equal(415);
      expect(((await response.json()) as { detail: string }).detail, contentType).to.include(contentType);
    }
    expect(await store.headPosition()).to.equal(head);
  });

  it('takes UTF-8, declared or not, and stores its text as sent', async () => {
    for (const contentType of ['application/json', 'application/json; charset=utf-8', 'application/json; Charset="UTF-8"']) {
      const name = `Lumière ${contentType.length}`;
      const response = await patch(JSON.stringify({ name: { en: name, fr: name } }), contentType);
      expect(response.status, contentType).to.equal(200);
      const [revised] = (await store.readStream('watch-AUR-LU-001')).slice(-1) as { data: { name?: { en: string } } }[];
      expect(revised?.data.name?.en).to.equal(name);
    }
  });
});
