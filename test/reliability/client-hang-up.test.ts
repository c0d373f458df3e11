/**
 * A client that hangs up mid-body is not a server error (issue 42, item 2): a POST whose body is cut off (price,
 * `/mcp`, admin) is counted as 499 in the metrics, logged by the request log at info with status 499 and without a
 * stack or the query string, and never logged at error level; the `ApiServerErrors` alert, on 5xx, does not see it
 * (its promtool unit test, infra/prometheus/alerts.test.yml, holds that side).
 */
import { expect } from 'chai';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import Koa from 'koa';
import { pino } from 'pino';
import { frontDoor } from '../../read-api/middleware/front-door.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { createAdminApp } from '../../services/admin/admin-app.ts';
import { createCommandService } from '../../services/write/command-service.ts';
import { send } from '../support/http.ts';
import { sendHalfBodyAndClose } from '../support/raw-http.ts';
import { startReadApiUnderTest, type LogLine, type ReadApiUnderTest } from '../support/read-api-under-test.ts';
import { until } from '../support/until.ts';

const CAT = 'cat-key-1-4f9e2d7c1b8a6053e7d9c2b1a0';
const SECRET_QUERY = 'token=s3cr3t-query-value';

/** A POST head announcing 1,000 bytes of JSON, with a query string no log line may carry. */
const postHead = (path: string, extra = '') =>
  `POST ${path}?${SECRET_QUERY} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n${extra}Content-Length: 1000\r\n\r\n`;
const HALF_BODY = '{"collection":"regate","model_ref":"RG-';

describe('a client that hangs up mid-body (issue 42, item 2)', function () {
  this.timeout(30_000);
  let api: ReadApiUnderTest;

  before(async () => {
    api = await startReadApiUnderTest();
  });
  after(() => api?.close());

  for (const [what, path] of [['price', '/api/public/configurator/price'], ['MCP', '/mcp']] as const) {
    it(`counts a ${what} POST cut off mid-body as 499, logs it at info without a stack or its query string, and no error`, async () => {
      await sendHalfBodyAndClose(api.url, postHead(path), HALF_BODY);
      const requestLine = () => api.logs.find((line) => line.msg === 'request' && line['path'] === path && line['status'] === 499);
      await until(`the request log names the ${what} hang-up`, () => requestLine() !== undefined);
      expect(requestLine()!.level).to.equal(30);
      expect(api.errors(), JSON.stringify(api.errors())).to.deep.equal([]);
      const everyLine = JSON.stringify(api.logs);
      expect(everyLine).not.to.include(SECRET_QUERY);
      expect(everyLine).not.to.include('"stack"');
      const metrics = (await send(api.opsUrl, '/metrics')).text;
      const statuses = [...metrics.matchAll(/^http_requests_total\{[^}]*status="(\d+)"[^}]*\} (\d+)/gm)].filter(([line]) => line.includes(`route="${path}"`) || line.includes('route="unmatched"'));
      expect(statuses.map(([, status]) => status), metrics).to.include('499');
      expect(statuses.some(([, status]) => status!.startsWith('5')), 'a 5xx counted').to.equal(false);
    });
  }

  it('answers an admin POST cut off mid-body as 499 in its request line, logged at info, and no error', async () => {
    const lines: LogLine[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line) as LogLine); } });
    const store: EventStore = openSqliteEventStore(':memory:');
    const app = createAdminApp(createCommandService(store), { ADMIN_API_KEYS: `${CAT}:catalogue`, ADMIN_AUTH_FAILURES_PER_MINUTE: 100 }, logger);
    const server: Server = app.listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await sendHalfBodyAndClose(url, postHead('/admin/import', `Authorization: Bearer ${CAT}\r\n`), '{"watches":[');
      await until('the admin request line', () => lines.some((line) => line.msg === 'admin request'));
      expect(lines.filter((line) => line.msg === 'admin request').map((line) => [line.level, line['status'], line['path']]))
        .to.deep.equal([[30, 499, '/admin/import']]);
      expect(lines.filter((line) => line.level >= 50)).to.deep.equal([]);
      expect(JSON.stringify(lines)).not.to.include(SECRET_QUERY);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await store.close();
    }
  });

  it('logs a server error with its path, never its query string (the request log leaves it out)', async () => {
    const lines: LogLine[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line) as LogLine); } });
    const server = new Koa().use(frontDoor(logger)).use(() => { throw new Error('a bug'); }).listen(0, '127.0.0.1');
    try {
      await once(server, 'listening');
      const answer = await send(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, `/api/public/catalogue?${SECRET_QUERY}`);
      expect(answer.status).to.equal(500);
      const failed = lines.filter((line) => line.level >= 50);
      expect(failed.map((line) => [line.msg, line['path']])).to.deep.equal([['request failed', '/api/public/catalogue']]);
      expect(JSON.stringify(lines)).not.to.include(SECRET_QUERY);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
