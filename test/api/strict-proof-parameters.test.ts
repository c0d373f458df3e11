/**
 * Strict numbers and framing (issue 42, item 6). The proof parameters name a leaf or a tree, so each has one
 * spelling: canonical decimal digits (no sign, no leading zero but "0", no space, no `_`), at most 2^53 - 1, given
 * once; anything else is a 422 in the contract's shape (a non-canonical text `int_parsing`, as a text that is no
 * integer; a larger number `less_than_equal`; a repeated parameter arrives as a list, `int_type`). Before, `+1`,
 * `01`, `-0` and ` 1` were read as numbers, a 20-digit index was rounded, and the last of repeated values won.
 * And an HTTP/1.0 request with `Transfer-Encoding: chunked` is answered on a connection then closed (RFC 9112 §6.1),
 * even when it asks for keep-alive.
 */
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { frontDoor } from '../../read-api/middleware/front-door.ts';
import type { TransparencyLog } from '../../read-api/transparency/log-publisher.ts';
import { transparencyRoutes } from '../../read-api/transparency/transparency-routes.ts';
import { createAdminApp } from '../../services/admin/admin-app.ts';
import { createAdminServer } from '../../services/admin/admin-server.ts';
import { createCommandService } from '../../services/write/command-service.ts';
import { serialRegistered } from '../fixtures/events.ts';
import { send } from '../support/http.ts';
import { rawExchange } from '../support/raw-http.ts';
import { startReadApiUnderTest } from '../support/read-api-under-test.ts';
import { signedLogOf } from '../support/signed-log.ts';

const INT_PARSING = 'Input should be a valid integer, unable to parse string as an integer';
const MAX_SAFE = 2 ** 53 - 1;

describe('proof parameters: canonical decimal integers, given once (issue 42, item 6)', () => {
  let events: EventStore;
  let log: TransparencyLog;
  let server: Server;
  let base: string;

  before(async () => {
    events = openSqliteEventStore(':memory:');
    for (const serial of ['AUR-2024-000001', 'AUR-2024-000002', 'AUR-2024-000003']) {
      await events.append(`serial-${serial}`, [serialRegistered(serial)], 'no_stream');
    }
    ({ log } = await signedLogOf(events, generateKeyPairSync('ed25519').privateKey, 'watch.example/watchcat/events'));
    const logger = createLogger('silent', 'test');
    server = new Koa().use(frontDoor(logger)).use(transparencyRoutes(log)).listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await log.stop();
    await new Promise((resolve) => server.close(resolve));
    await events.close();
  });

  const detail = async (query: string, path = 'inclusion') => {
    const answer = await send(base, `/api/public/transparency/${path}?${query}`);
    expect(answer.status, `${path}?${query}: ${answer.text}`).to.equal(422);
    return answer.json().detail as unknown[];
  };

  it('answers canonical numbers, "0" included', async () => {
    expect((await send(base, '/api/public/transparency/inclusion?index=0&tree_size=3')).status).to.equal(200);
    expect((await send(base, '/api/public/transparency/consistency?from=1&to=3')).status).to.equal(200);
  });

  for (const [name, text] of [
    ['a plus sign', '+1'], ['a leading zero', '01'], ['minus zero', '-0'], ['a leading space', ' 1'], ['a trailing space', '1 '],
    ['an underscore', '1_0'], ['an exponent', '1e0'], ['a fraction', '1.0'], ['hexadecimal', '0x1'], ['nothing', ''],
  ]) {
    it(`refuses ${name} (${JSON.stringify(text)}) in index, tree_size, position, from and to with int_parsing`, async () => {
      const value = encodeURIComponent(text!);
      for (const [path, query, loc] of [
        ['inclusion', `index=${value}&tree_size=3`, 'index'],
        ['inclusion', `index=0&tree_size=${value}`, 'tree_size'],
        ['inclusion', `position=${value}&tree_size=3`, 'position'],
        ['consistency', `from=${value}&to=3`, 'from'],
        ['consistency', `from=1&to=${value}`, 'to'],
      ] as const) {
        expect(await detail(query, path), `${path}?${query}`).to.deep.equal([{ type: 'int_parsing', loc: ['query', loc], msg: INT_PARSING, input: text }]);
      }
    });
  }

  it('refuses a number above 2^53 - 1 (never rounded) with less_than_equal, and takes 2^53 - 1 itself as a number', async () => {
    for (const text of ['9007199254740992', '99999999999999999999']) {
      expect(await detail(`index=${text}&tree_size=3`)).to.deep.equal([{
        type: 'less_than_equal', loc: ['query', 'index'], msg: `Input should be less than or equal to ${MAX_SAFE}`, input: text, ctx: { le: MAX_SAFE },
      }]);
    }
    const largest = await detail(`from=1&to=${MAX_SAFE}`, 'consistency');
    expect(largest).to.have.length(1);
    expect(largest[0]).to.deep.include({ type: 'value_error', loc: ['query', 'to'], input: MAX_SAFE });
  });

  it('refuses a repeated parameter, whatever its values, as a list that is no integer', async () => {
    expect(await detail('index=0&index=1&tree_size=3')).to.deep.equal([
      { type: 'int_type', loc: ['query', 'index'], msg: 'Input should be a valid integer', input: ['0', '1'] },
    ]);
    expect(await detail('from=1&to=3&to=3', 'consistency')).to.deep.equal([
      { type: 'int_type', loc: ['query', 'to'], msg: 'Input should be a valid integer', input: ['3', '3'] },
    ]);
  });

  // The leaf is named by `index`, or by `position` when `index` is not given (the contract, "Transparency log"; the
  // OpenAPI document's `position`): both given, one would be ignored, so neither is taken. On main at b3120d0
  // `position` was silently ignored: `index=0&position=999999` was a 200 proof of leaf 0.
  it('refuses index and position given together with one 422 naming both, whether or not they name the same leaf', async () => {
    for (const [query, position] of [['index=0&position=999999', '999999'], ['position=1&index=0&tree_size=3', '1'], ['index=2&position=3', '3']] as const) {
      const found = await detail(query) as { type: string; loc: unknown[]; msg: string; input: unknown }[];
      expect(found, query).to.have.length(1);
      expect(found[0], query).to.deep.include({ type: 'value_error', loc: ['query', 'position'], input: position });
      expect(found[0]!.msg, query).to.match(/^Value error, /).and.to.include('`index`').and.to.include('`position`');
    }
    // Listed with the request's other failing fields, as every validation error is (contract: every failing field at once).
    const answer = await send(base, '/api/public/transparency/inclusion?index=0&position=1', { headers: { 'x-min-position': '-1' } });
    expect(answer.status).to.equal(422);
    expect((answer.json().detail as { loc: unknown[] }[]).map((one) => one.loc)).to.deep.equal([['query', 'position'], ['header', 'x-min-position']]);
    // Neither is still the contract's `missing`, and one alone is a proof.
    expect(await detail('tree_size=3')).to.deep.equal([{ type: 'missing', loc: ['query', 'index'], msg: 'Field required', input: null }]);
    expect((await send(base, '/api/public/transparency/inclusion?position=1&tree_size=3')).status).to.equal(200);
  });
});

describe('HTTP/1.0 with chunked framing closes the connection after the answer (issue 42, item 6)', () => {
  /** A chunked HTTP/1.0 POST asking for keep-alive: the body `{}` in one chunk. */
  const chunked10 = (path: string, extra = '') =>
    `POST ${path} HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\nContent-Type: application/json\r\n${extra}Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`;

  it('answers it on the public port, then closes the connection', async () => {
    const api = await startReadApiUnderTest();
    try {
      const answer = await rawExchange(api.url, chunked10('/api/public/configurator/price'));
      expect(answer?.status).to.equal(422);
      expect(answer?.headers['connection']).to.equal('close');
    } finally {
      await api.close();
    }
  });

  it('answers it on the admin port, then closes the connection', async () => {
    const store = openSqliteEventStore(':memory:');
    const key = 'cat-key-1-4f9e2d7c1b8a6053e7d9c2b1a0';
    const app = createAdminApp(createCommandService(store), { ADMIN_API_KEYS: `${key}:catalogue`, ADMIN_AUTH_FAILURES_PER_MINUTE: 100 }, createLogger('silent', 'test'));
    const server = createAdminServer(app).listen(0, '127.0.0.1');
    try {
      await once(server, 'listening');
      const answer = await rawExchange(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, chunked10('/admin/watches', `Authorization: Bearer ${key}\r\n`));
      expect(answer?.status).to.equal(422);
      expect(answer?.headers['connection']).to.equal('close');
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await store.close();
    }
  });
});
