/** The admin server against slow clients (issue 17, finding 5): the public port's timeouts, and no drained bodies. */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { expect } from 'chai';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { createAdminApp } from '../../services/admin/admin-app.ts';
import { createAdminServer } from '../../services/admin/admin-server.ts';
import { createCommandService } from '../../services/write/command-service.ts';
import { closedWithin, trickle } from '../support/trickle.ts';

const KEY = 'cat-key-0123456789abcdef0123456789abcdef';
const REQUEST_TIMEOUT_MS = 1_500;

describe('admin server against slow clients', function () {
  this.timeout(20_000);
  let store: EventStore;
  let server: Server;
  let url: string;

  before(async () => {
    store = openSqliteEventStore(':memory:');
    const app = createAdminApp(createCommandService(store), { ADMIN_API_KEYS: `${KEY}:catalogue`, ADMIN_AUTH_FAILURES_PER_MINUTE: 100 }, createLogger('silent', 'test'));
    server = createAdminServer(app, REQUEST_TIMEOUT_MS);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await store.close();
  });

  it('answers 401 to an unauthenticated trickled upload at once and closes the connection instead of draining it', async () => {
    const slow = trickle(url, 'POST /admin/import HTTP/1.1\r\nHost: admin\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n{');
    try {
      expect(await slow.statusLine).to.equal('HTTP/1.1 401 Unauthorized');
      // Well before the request timeout: the server closes right after its answer.
      expect(await closedWithin(slow, REQUEST_TIMEOUT_MS - 500)).to.be.a('number');
    } finally {
      slow.stop();
    }
  });

  it('answers 413 to a declared oversized body and closes the connection', async () => {
    const big = trickle(url, `PUT /admin/watches/AUR-1/price HTTP/1.1\r\nHost: admin\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`);
    try {
      expect(await big.statusLine).to.equal('HTTP/1.1 413 Payload Too Large');
      expect(await closedWithin(big, REQUEST_TIMEOUT_MS - 500)).to.be.a('number');
    } finally {
      big.stop();
    }
  });

  it('cuts a request head that never ends within the request timeout, as the public port does', async () => {
    const slow = trickle(url, 'GET /admin/nothing HTTP/1.1\r\nHost: admin\r\nX-Slow: ', 'a');
    try {
      const closed = await closedWithin(slow, REQUEST_TIMEOUT_MS + 2_500);
      expect(closed, 'a trickled head').to.be.a('number');
    } finally {
      slow.stop();
    }
  });
});
