/**
 * Error work is bounded (issue 42, item 1): a 422 lists at most 50 issues and then one `too_many_errors` entry
 * counting the rest (shared/read-model/public-api/validation/issue-bound.ts), echoes bounded inputs, and the admin import of a
 * 16 MiB file of empty entries (millions of failing fields) is answered with a small 422 by a process that keeps
 * serving public requests beside it. The figures of the bound are the module's documented ones: 50 listed, counting
 * stopped at 10,000.
 */
import { expect } from 'chai';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString, getHeapStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { createAdminApp } from '../../services/admin/admin-app.ts';
import { IMPORT_BODY_LIMIT } from '../../services/admin/json-body.ts';
import { createCommandService } from '../../services/write/command-service.ts';
import { postJson, send } from '../support/http.ts';
import { postMcp, toolCall } from '../support/mcp-client.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';

const CAT = 'cat-key-1-4f9e2d7c1b8a6053e7d9c2b1a0';
const LISTED = 50;
const COUNTED = 10_000;
const MiB = 1024 * 1024;

interface Issue { type: string; loc: unknown[]; msg: string; input: unknown; ctx?: Record<string, unknown> }

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapUsed = () => {
  gc();
  return getHeapStatistics().used_heap_size;
};

describe('bounded error work (issue 42, item 1)', function () {
  this.timeout(120_000);
  let store: EventStore;
  let admin: Server;
  let adminUrl: string;
  let api: ReadApiUnderTest;

  before(async () => {
    store = openSqliteEventStore(':memory:');
    const app = createAdminApp(createCommandService(store), { ADMIN_API_KEYS: `${CAT}:catalogue`, ADMIN_AUTH_FAILURES_PER_MINUTE: 100 }, createLogger('silent', 'test'));
    admin = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => admin.once('listening', resolve));
    adminUrl = `http://127.0.0.1:${(admin.address() as AddressInfo).port}`;
    api = await startReadApiUnderTest();
  });
  after(async () => {
    await api?.close();
    await new Promise((resolve) => admin.close(resolve));
    await store.close();
  });

  it('answers a 16 MiB import of empty watch entries with a small 422 (50 issues, then the count of the rest), its memory bounded, while public requests beside it are answered', async () => {
    const entries = Math.floor((IMPORT_BODY_LIMIT - 100) / 3);
    const body = `{"watches":[${'{},'.repeat(entries - 1)}{}],"collections":[],"configurators":[],"serials":[]}`;
    expect(Buffer.byteLength(body)).to.be.at.most(IMPORT_BODY_LIMIT);
    const before = heapUsed();
    let peak = 0;
    const sampler = setInterval(() => { peak = Math.max(peak, getHeapStatistics().used_heap_size); }, 5);

    const importing = fetch(`${adminUrl}/admin/import`, {
      method: 'POST', headers: { authorization: `Bearer ${CAT}`, 'content-type': 'application/json' }, body,
    });
    const publicAnswers: number[] = [];
    let imported: Response | undefined;
    void importing.then((answer) => { imported = answer; });
    // Public requests go on beside the import, for as long as it runs (and at least a few).
    while (imported === undefined || publicAnswers.length < 5) {
      publicAnswers.push((await send(api.url, '/api/public/collections')).status);
    }
    const text = await imported.text();
    clearInterval(sampler);

    expect(imported.status, text.slice(0, 300)).to.equal(422);
    expect(publicAnswers.every((status) => status === 200), String(publicAnswers)).to.equal(true);
    const { detail } = JSON.parse(text) as { detail: Issue[] };
    expect(detail).to.have.length(LISTED + 1);
    expect(detail.slice(0, LISTED).every((found) => found.type === 'missing' && found.loc[0] === 'body' && found.loc[1] === 'watches')).to.equal(true);
    expect(detail[0]).to.deep.include({ loc: ['body', 'watches', 0, 'reference'], input: {} });
    const rest = detail[LISTED]!;
    expect(rest).to.deep.include({ type: 'too_many_errors', loc: ['body'], input: null });
    expect(rest.ctx).to.deep.equal({ not_listed: COUNTED - LISTED, counted_all: false });
    expect(rest.msg).to.equal(`At least ${COUNTED - LISTED} more errors not listed`);
    expect(text.length).to.be.below(16 * 1024);
    // Generous bounds, not timings: parsing the body holds a few hundred MB at most; nothing stays once answered.
    expect(peak - before, `peak heap growth ${Math.round((peak - before) / MiB)} MB`).to.be.below(1024 * MiB);
    expect(heapUsed() - before, 'heap kept after the answer').to.be.below(64 * MiB);
  });

  /** A price request whose `options` has `keys` entries with a non-string value: one `string_type` issue each. */
  const badOptions = (keys: number) => ({
    collection: 'regate', model_ref: 'RG-100', options: Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, 1])),
  });
  const expectedIssue = (i: number): Issue => ({ type: 'string_type', loc: ['body', 'options', `k${i}`], msg: 'Input should be a valid string', input: 1 });

  it('lists 50 issues of a price body with 1,400 bad option keys, in the order sent, then counts the other 1,350; below the bound every one is listed', async () => {
    const many = await postJson(api.url, '/api/public/configurator/price', badOptions(1_400));
    expect(many.status).to.equal(422);
    expect(many.json().detail).to.deep.equal([
      ...Array.from({ length: LISTED }, (_, i) => expectedIssue(i)),
      { type: 'too_many_errors', loc: ['body'], msg: '1350 more errors not listed', input: null, ctx: { not_listed: 1_350, counted_all: true } },
    ]);
    const fifty = await postJson(api.url, '/api/public/configurator/price', badOptions(LISTED));
    expect(fifty.json().detail).to.deep.equal(Array.from({ length: LISTED }, (_, i) => expectedIssue(i)));
  });

  it('bounds the answer of MCP quote_price the same way', async () => {
    const answer = await postMcp(api.url, toolCall('quote_price', badOptions(1_400)));
    const result = answer.json().result as { isError: boolean; content: { text: string }[] };
    expect(result.isError).to.equal(true);
    const { detail } = JSON.parse(result.content[0]!.text) as { detail: Issue[] };
    expect(detail).to.have.length(LISTED + 1);
    expect(detail[0]).to.deep.equal(expectedIssue(0));
    expect(detail[LISTED]).to.deep.include({ type: 'too_many_errors', ctx: { not_listed: 1_350, counted_all: true } });
  });
});
