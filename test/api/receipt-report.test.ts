/**
 * What `watchcat receipt verify` prints of a signed answer saved with `curl -si`, whole (docs/api.md, "Receipts"):
 * each line from the answer itself (its label, request, body, covered components, signed position and age, key,
 * created time, key set), and no line it has nothing for: an HTTP answer names no MCP call. A created ahead of this
 * machine's clock is shown with how far ahead, never refused (a signer's clock is not the verifier's).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createCliContext } from '../../services/cli/cli-context.ts';
import { run } from '../../services/cli/program.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { PROJECTIONS } from '../../shared/read-model/projections/index.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { serialRegistered } from '../fixtures/events.ts';
import { curlSi } from '../support/curl-si.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';
import { readSignatureInput, thumbprintByHand } from '../support/rfc9421-by-hand.ts';
import { testSigningKeys } from '../support/signing-keys.ts';

const SERIAL = 'RR-2024-0001';
const PATH = `/api/public/verify/${SERIAL}`;

describe('watchcat receipt verify: what it says of a signed HTTP answer', function () {
  this.timeout(60_000);
  let dir: string;
  let events: EventStore;
  let api: ReadApiUnderTest;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'watchcat-receipt-report-'));
    events = openSqliteEventStore(join(dir, 'events.sqlite3'));
    await events.append(`serial-${SERIAL}`, [serialRegistered(SERIAL)], 'no_stream');
    const readStore = createMemoryReadStore();
    await rebuild({ eventStore: events, readStore, projections: [...PROJECTIONS] });
    api = await startReadApiUnderTest({ readStore, signingKeys: await testSigningKeys() });
  });
  after(async () => {
    await api?.close();
    await events?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints one line for each thing the answer holds, no call line, and a created ahead of this clock with how far ahead', async () => {
    const saved = await curlSi(`${api.url}${PATH}`, { 'Accept-Signature': 'sig1=("@status")' });
    const file = join(dir, 'answer.txt');
    writeFileSync(file, saved);
    const jwksFile = join(dir, 'jwks.json');
    writeFileSync(jwksFile, Buffer.from(await (await fetch(`${api.url}/.well-known/jwks.json`)).arrayBuffer()));
    const [jwk] = (JSON.parse(readFileSync(jwksFile, 'utf8')) as { keys: { x: string }[] }).keys;

    // Read from the saved bytes, not through the command's own parser.
    const text = saved.toString('latin1');
    const head = text.slice(0, text.indexOf('\r\n\r\n'));
    const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1]?.trim();
    const input = readSignatureInput(header('signature-input')!);
    const created = Number(/;created=(\d+)/.exec(input.params)![1]);
    const position = header('x-read-model-position');
    const age = header('x-data-age');
    expect(input.identifiers, 'position and age signed').to.include.members(['"x-read-model-position"', '"x-data-age"']);
    const report = (at: string) => [
      `receipt holds: signature ${input.label} verified`,
      `answer: 200 to GET //${new URL(api.url).host}${PATH}, body ${saved.length - text.indexOf('\r\n\r\n') - 4} bytes matching Content-Digest sha-256`,
      `signed: ${input.identifiers.join(' ')}`,
      `data: read at read-model position ${position} (signed), ${age} s old (signed)`,
      `by key: ${thumbprintByHand(jwk!.x)} (current key)`,
      `at: ${at}`,
      `key set: ${jwksFile} (sha-256 ${createHash('sha256').update(readFileSync(jwksFile)).digest('hex')})`,
    ];
    const verify = async () => {
      const out: string[] = [];
      const notes: string[] = [];
      const code = await run(['node', 'watchcat', 'receipt', 'verify', file, '--jwks', jwksFile],
        createCliContext({ LOG_LEVEL: 'silent' }, { out: (line) => out.push(line), note: (line) => notes.push(line) }));
      return { code, out, notes };
    };

    // This machine's clock read late in the second the answer was signed in: not ahead.
    const realNow = Date.now;
    const iso = new Date(created * 1000).toISOString();
    try {
      Date.now = () => created * 1000 + 999;
      expect(await verify()).to.deep.equal({ code: 0, out: report(iso), notes: [] });
      // The same answer read on a machine whose clock runs an hour behind the signer's.
      Date.now = () => (created - 3_600) * 1000 + 999;
      expect(await verify()).to.deep.equal({
        code: 0, out: report(`${iso} (3600 s ahead of this machine's clock: one of the two clocks is off)`), notes: [],
      });
    } finally {
      Date.now = realNow;
    }
  });
});
