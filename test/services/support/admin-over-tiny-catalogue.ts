/**
 * The admin API over an in-memory event store holding the tiny catalogue, on a free loopback port, for tests of
 * one admin route: `call` sends JSON with the catalogue key; `close` ends the server and the store.
 */
import type { AddressInfo } from 'node:net';
import { openSqliteEventStore } from '../../../shared/adapters/sqlite-event-store.ts';
import { createLogger } from '../../../shared/logging/logger.ts';
import type { EventStore } from '../../../shared/ports/event-store.ts';
import { createAdminApp } from '../../../services/admin/admin-app.ts';
import { createCommandService } from '../../../services/write/command-service.ts';
import { importCatalogue } from '../../../services/import/import-catalogue.ts';
import { tinyCatalogue } from './tiny-catalogue.ts';

export interface AdminUnderTest {
  store: EventStore;
  call(method: string, path: string, body: unknown): Promise<Response>;
  close(): Promise<void>;
}

export async function adminOverTinyCatalogue(catalogueKey: string): Promise<AdminUnderTest> {
  const store = openSqliteEventStore(':memory:');
  const service = createCommandService(store);
  await importCatalogue(service, tinyCatalogue());
  const app = createAdminApp(service, { ADMIN_API_KEYS: `${catalogueKey}:catalogue`, ADMIN_AUTH_FAILURES_PER_MINUTE: 100 }, createLogger('silent', 'test'));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    store,
    call: (method, path, body) => fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, {
      method, headers: { 'content-type': 'application/json', authorization: `Bearer ${catalogueKey}` }, body: JSON.stringify(body),
    }),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await store.close();
    },
  };
}
