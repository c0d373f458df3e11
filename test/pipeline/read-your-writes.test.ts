/**
 * Read your writes (docs/api.md, "Read your writes"), through the whole service on the demo catalogue: each admin
 * change answers its position in `X-Position`; a public request sent at once with `X-Min-Position` set to it is
 * answered from read models at or past it (HTTP, kept answers included, and MCP through the SDK's own `Client`); a
 * malformed value is a 422 at the header. (The 503 past `MIN_POSITION_WAIT_MS`: test/api/min-position.test.ts.)
 * Expected statuses follow from the changes the test makes itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { startWatchcat, type RunningWatchcat } from '../../all-in-one.ts';
import { loadConfig } from '../../shared/config/config.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { send, type TestResponse } from '../support/http.ts';
import { connectedClient } from '../support/mcp-client.ts';
import { untilRegistryFresh } from '../support/registry-fresh.ts';

/** A demo watch (services/demo) that serials are registered to. */
const REFERENCE = 'AUR-SP-001';
/** Short enough for a test, long enough for a busy machine's projector to catch up. */
const WAIT_MS = 4_000;
const KEY = randomBytes(24).toString('hex');

describe('read your writes: X-Position and X-Min-Position (issue 44)', function () {
  this.timeout(180_000);
  let dataDir: string;
  let service: RunningWatchcat | undefined;
  let api: string;
  let admin: string;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'watchcat-ryw-'));
    service = await startWatchcat(loadConfig({
      DATA_DIR: dataDir, PORT: '0', OPS_PORT: '0', ADMIN_PORT: '0', HOST: '127.0.0.1', ADMIN_API_KEYS: `${KEY}:serials,${KEY}x:catalogue`,
      RATE_LIMIT_PER_MINUTE: '100000', VERIFY_RATE_LIMIT_PER_MINUTE: '100000', VERIFY_GLOBAL_RATE_LIMIT_PER_MINUTE: '100000',
      MIN_POSITION_WAIT_MS: String(WAIT_MS),
    }), createLogger('silent', 'read-your-writes-test'));
    api = `http://127.0.0.1:${service.ports.public}`;
    admin = `http://127.0.0.1:${service.ports.admin}`;
    await untilRegistryFresh(api, 60_000);
  });
  after(async () => {
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** An admin change; its position, which the body and `X-Position` both give. */
  async function change(method: string, path: string, key: string, body?: unknown): Promise<number> {
    const answer = await send(admin, path, {
      method, headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(answer.status, answer.text).to.be.within(200, 201);
    const { position } = answer.json<{ position: number }>();
    expect(answer.headers['x-position'], 'X-Position says the body\'s position').to.equal(String(position));
    return position;
  }

  const atLeast = (path: string, position: number, lang = 'en'): Promise<TestResponse> =>
    send(api, `${path}${path.includes('?') ? '&' : '?'}lang=${lang}`, { headers: { 'x-min-position': String(position) } });

  function expectAtLeast(answer: TestResponse, position: number): void {
    expect(answer.status, answer.text).to.equal(200);
    expect(Number(answer.headers['x-read-model-position']), 'the answer reflects the change').to.be.at.least(position);
  }

  it('answers a verification sent right after each change from read models at or past its X-Position, 20 flips in a row', async () => {
    const serial = `RYW-${randomBytes(3).toString('hex').toUpperCase()}`;
    let position = await change('POST', '/admin/serials', KEY, { serial, reference: REFERENCE, year: 2024 });
    let answer = await atLeast(`/api/public/verify/${serial}`, position);
    expectAtLeast(answer, position);
    expect(answer.json().verification_status).to.equal('AUTHENTIC');
    for (let flip = 1; flip <= 20; flip += 1) {
      const stolen = flip % 2 === 1;
      position = await change('POST', `/admin/serials/${serial}/${stolen ? 'stolen' : 'recovered'}`, KEY);
      answer = await atLeast(`/api/public/verify/${serial}`, position);
      expectAtLeast(answer, position);
      expect(answer.json().verification_status, `flip ${flip}`).to.equal(stolen ? 'STOLEN' : 'AUTHENTIC');
    }
  });

  it('does not give a kept answer older than the position asked: a watch detail read before a price change, asked again at its position', async () => {
    const before = await send(api, `/api/public/catalogue/${REFERENCE}`);
    expect(before.status).to.equal(200);
    // Asked twice, so that the URL cache and the canonical cache both hold it.
    expect((await send(api, `/api/public/catalogue/${REFERENCE}`)).text).to.equal(before.text);
    const price = before.json<{ price_eur: number }>().price_eur + 100;
    const position = await change('PUT', `/admin/watches/${REFERENCE}/price`, `${KEY}x`, { price_eur: price });
    const after = await atLeast(`/api/public/catalogue/${REFERENCE}`, position);
    expectAtLeast(after, position);
    expect(after.json().price_eur).to.equal(price);
  });

  it('answers a tool call over MCP, through the SDK\'s Client sending X-Min-Position, from read models at or past it', async () => {
    const serial = `RYW-${randomBytes(3).toString('hex').toUpperCase()}`;
    await change('POST', '/admin/serials', KEY, { serial, reference: REFERENCE, year: 2024 });
    const position = await change('POST', `/admin/serials/${serial}/stolen`, KEY);
    const seen: (string | null)[] = [];
    const client = await connectedClient(api, async (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('X-Min-Position', String(position));
      const answer = await fetch(input, { ...init, headers });
      seen.push(answer.headers.get('x-read-model-position'));
      return answer;
    });
    try {
      const result = await client.callTool({ name: 'verify_serial', arguments: { serial } });
      expect(result.isError ?? false, JSON.stringify(result.content)).to.equal(false);
      expect((result.structuredContent as { verification_status: string }).verification_status).to.equal('STOLEN');
      expect(Number(seen.at(-1)), 'the POST /mcp answer\'s X-Read-Model-Position').to.be.at.least(position);
    } finally {
      await client.close();
    }
  });

  it('answers at once when the position is already served, as without the header', async () => {
    const plain = await send(api, '/api/public/collections');
    const asked = await atLeast('/api/public/collections', 0);
    expect(asked.status).to.equal(200);
    expect(asked.json()).to.deep.equal(plain.json());
  });

  it('refuses a value that is not canonical decimal digits with a 422 at the header, in the usual shape', async () => {
    // (Spaces around a value are no part of it, RFC 9110 section 5.5: Node's parser drops them, as any server may.)
    for (const value of ['+5', '05', '5 6', '-1', '1.0', '5x', '9007199254740992', '']) {
      const answer = await send(api, '/api/public/collections', { headers: { 'x-min-position': value } });
      expect(answer.status, `${JSON.stringify(value)}: ${answer.text}`).to.equal(422);
      const [issue] = answer.json<{ detail: { loc: string[]; type: string }[] }>().detail;
      expect(issue!.loc, JSON.stringify(value)).to.deep.equal(['header', 'x-min-position']);
    }
  });
});
