/**
 * Issue 40, defect 1, in process: a signed AUTHENTIC must not pin a tree of the transparency log that holds the theft.
 * The log is projected past the serials read model (a theft appended and put in the log only), as when the two run
 * on different workers: the signed verification, read at the serials' position, pins the tree of the events up to
 * that position, not the latest checkpoint; its signature covers `X-Read-Model-Position` (checked by the independent
 * RFC 9421 code of test/support/rfc9421-by-hand.ts); the log's own inclusion endpoint shows the theft outside the
 * pinned tree; `watchcat receipt verify --checkpoint` accepts the receipt, and refuses the same answer signed by hand
 * over the latest tree (which holds the theft), naming the event the answer had not seen. The same verification
 * signed over MCP pins the same tree.
 */
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { answerCheckpoint } from '../../read-api/transparency/answer-checkpoint.ts';
import { startTransparencyLog, type TransparencyLog } from '../../read-api/transparency/log-publisher.ts';
import { transparencyRoutes } from '../../read-api/transparency/transparency-routes.ts';
import { createCliContext } from '../../services/cli/cli-context.ts';
import { run } from '../../services/cli/program.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { PROJECTIONS } from '../../shared/read-model/projections/index.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { serialRegistered, serialReportedStolen } from '../fixtures/events.ts';
import { MCP_HEADERS } from '../support/mcp-client.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';
import { publicKeyFromX, readSignatureInput, signatureBase, signBase, signatureBytes, verifyBase } from '../support/rfc9421-by-hand.ts';
import { newSigningKeyPem, testSigningKeys } from '../support/signing-keys.ts';
import { logProjection } from '../support/signed-log.ts';

const ORIGIN = 'watch.example/watchcat/events';
const SERIAL = 'AC-2024-0007';
const VERIFY_PATH = `/api/public/verify/${SERIAL}`;

/** A raw answer as `curl -si` saves it, its bytes as latin1 text (written back as latin1, they are the same bytes). */
async function curlSi(url: string): Promise<{ text: string; headers: Headers; body: string }> {
  const answer = await fetch(url, { headers: { 'Accept-Signature': 'sig1=("@status")' } });
  const body = Buffer.from(await answer.arrayBuffer()).toString('latin1');
  const head = [...answer.headers].map(([name, value]) => `${name}: ${value}`).join('\r\n');
  return { text: `HTTP/1.1 ${answer.status} OK\r\n${head}\r\n\r\n${body}`, headers: answer.headers, body };
}

describe('a signed verification read behind the transparency log pins a tree holding no event after its data', function () {
  this.timeout(60_000);
  let dir: string;
  let events: EventStore;
  let log: TransparencyLog;
  let api: ReadApiUnderTest;
  const signingPem = newSigningKeyPem();
  /** Positions of the registration (what the serials read model has applied) and of the theft (the log only). */
  let registeredAt: number;
  let stolenAt: number;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'watchcat-answer-checkpoint-'));
    events = openSqliteEventStore(join(dir, 'events.sqlite3'));
    for (let i = 0; i < 5; i += 1) await events.append(`serial-AC-${i}`, [serialRegistered(`AC-2024-100${i}`)], 'no_stream');
    registeredAt = (await events.append(`serial-${SERIAL}`, [serialRegistered(SERIAL)], 'no_stream')).position;
    const readStore = createMemoryReadStore();
    await rebuild({ eventStore: events, readStore, projections: [...PROJECTIONS] });
    // The theft, then the log alone projected again: it is ahead of the serials read model, as on another worker.
    stolenAt = (await events.append(`serial-${SERIAL}`, [serialReportedStolen(SERIAL)], 0)).position;
    await rebuild({ eventStore: events, readStore, projections: [logProjection] });
    log = await startTransparencyLog({ readStore, key: generateKeyPairSync('ed25519').privateKey, origin: ORIGIN, logger: createLogger('silent', 'answer-checkpoint') });
    api = await startReadApiUnderTest({
      readStore, signingKeys: await testSigningKeys(signingPem), extraRoutes: [transparencyRoutes(log)], checkpoint: answerCheckpoint(log),
    });
  });
  after(async () => {
    await api?.close();
    await log?.stop();
    await events?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** `watchcat receipt verify` in this process against the API (key set, checkpoint, proofs). */
  async function verifyReceipt(text: string): Promise<{ code: number; out: string[]; notes: string[] }> {
    const file = join(dir, `receipt-${Math.random().toString(36).slice(2)}.txt`);
    writeFileSync(file, text, 'latin1');
    const out: string[] = [];
    const notes: string[] = [];
    const context = createCliContext({ LOG_LEVEL: 'silent', PORT: new URL(api.url).port }, { out: (line) => out.push(line), note: (line) => notes.push(line) });
    const logKey = (await (await fetch(`${api.url}/.well-known/transparency/key`)).text()).trim();
    const code = await run(['node', 'watchcat', 'receipt', 'verify', file, '--jwks', `${api.url}/.well-known/jwks.json`,
      '--checkpoint', `${api.url}/.well-known/transparency/checkpoint`, '--log-key', logKey], context);
    return { code, out, notes };
  }

  /** The values of the signed components of the 200 to GET VERIFY_PATH, its fields from `field`. */
  function componentValues(identifiers: string[], field: (name: string) => string): Record<string, string> {
    const values: Record<string, string> = {
      '"@status"': '200', '"@method";req': 'GET', '"@path";req': VERIFY_PATH, '"@query";req': '?', '"@authority";req': new URL(api.url).host,
    };
    for (const identifier of identifiers) if (!identifier.startsWith('"@')) values[identifier] = field(JSON.parse(identifier) as string);
    return values;
  }

  /** `answer` with the fields `changed`, signed by hand with the service's key over its components but `left`. */
  function signedByHand(answer: Awaited<ReturnType<typeof curlSi>>, changed: Record<string, string>, left: string[] = []): string {
    const input = readSignatureInput(answer.headers.get('signature-input')!);
    const identifiers = input.identifiers.filter((identifier) => !left.includes(identifier));
    const params = `(${identifiers.join(' ')})${input.params.slice(input.params.indexOf(')') + 1)}`;
    const values = componentValues(identifiers, (name) => changed[name] ?? answer.headers.get(name)!);
    const signature = signBase(signatureBase(identifiers, values, params), createPrivateKey(signingPem)).toString('base64');
    let text = answer.text
      .replace(/^(signature-input: ).*$/m, `$1${input.label}=${params}`)
      .replace(/^(signature: ).*$/m, `$1${input.label}=:${signature}:`);
    for (const [name, value] of Object.entries(changed)) text = text.replace(new RegExp(`^(${name}: ).*$`, 'm'), `$1${value}`);
    return text;
  }

  it('answers AUTHENTIC at the serials\' position, pinning the tree of the events up to it, with the position signed', async () => {
    const latest = log.checkpoint()!;
    expect(latest.size, 'the log holds the theft').to.equal(7);
    const { headers, body } = await curlSi(`${api.url}${VERIFY_PATH}`);
    expect(JSON.parse(body).verification_status).to.equal('AUTHENTIC');
    expect(headers.get('x-read-model-position')).to.equal(String(registeredAt));
    const [size, root] = headers.get('watchcat-checkpoint')!.split(' ');
    expect(Number(size), 'the six events up to the registration').to.equal(6);
    // The pinned root is the log's root of those six leaves, as its consistency proof to the latest checkpoint states it.
    const consistency = await (await fetch(`${api.url}/api/public/transparency/consistency?from=6&to=7`)).json() as { root: string };
    expect(consistency.root).to.equal(Buffer.from(latest.root).toString('base64'));
    const inclusion = await (await fetch(`${api.url}/api/public/transparency/inclusion?position=${registeredAt}&tree_size=6`)).json() as { root: string; leaf_index: number };
    expect(inclusion).to.include({ root, leaf_index: 5 });
    // The theft is not in the pinned tree.
    expect((await fetch(`${api.url}/api/public/transparency/inclusion?position=${stolenAt}&tree_size=6`)).status).to.equal(422);
    const input = readSignatureInput(headers.get('signature-input')!);
    expect(input.identifiers).to.include.members(['"x-read-model-position"', '"watchcat-checkpoint"']);
    const values = componentValues(input.identifiers, (name) => headers.get(name)!);
    const [jwk] = (await (await fetch(`${api.url}/.well-known/jwks.json`)).json() as { keys: { x: string }[] }).keys;
    expect(verifyBase(signatureBase(input.identifiers, values, input.params), signatureBytes(headers.get('signature')!, input.label), publicKeyFromX(jwk!.x))).to.equal(true);
  });

  it('pins the same tree to a signed verify_serial over MCP, whose answer says and signs its data\'s position too', async () => {
    const answer = await fetch(`${api.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'Accept-Signature': 'sig1=("@status")' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'verify_serial', arguments: { serial: SERIAL } } }),
    });
    const result = (await answer.json() as { result: { structuredContent: { verification_status: string } } }).result;
    expect(result.structuredContent.verification_status).to.equal('AUTHENTIC');
    expect(answer.headers.get('x-read-model-position')).to.equal(String(registeredAt));
    expect(answer.headers.get('watchcat-checkpoint')?.split(' ')[0], 'the six events up to the registration').to.equal('6');
    expect(readSignatureInput(answer.headers.get('signature-input')!).identifiers).to.include.members(['"x-read-model-position"', '"watchcat-checkpoint"']);
  });

  it('receipt verify --checkpoint accepts that receipt, and refuses one signed over the latest tree, which holds the theft', async () => {
    const honest = await curlSi(`${api.url}${VERIFY_PATH}`);
    const accepted = await verifyReceipt(honest.text);
    expect(accepted.code, accepted.notes.join('\n')).to.equal(0);
    // Every verification says how old its data is (X-Data-Age), and a signature covers it.
    const age = honest.headers.get('x-data-age');
    expect(age, 'X-Data-Age on a verification').to.match(/^\d+$/);
    expect(accepted.out).to.include(`data: read at read-model position ${registeredAt} (signed), ${age} s old (signed)`);
    expect(accepted.out).to.include(`data: the event at position ${registeredAt}, where the answer's data was read, is the last leaf of the pinned tree, so the tree holds no event the answer had not seen`);

    // The same answer as a signer that pins its latest checkpoint would give it, signed by hand with the same key.
    const latest = log.checkpoint()!;
    const pinnedLatest = `${latest.size} ${Buffer.from(latest.root).toString('base64')}`;
    const refused = await verifyReceipt(signedByHand(honest, { 'watchcat-checkpoint': pinnedLatest }));
    expect(refused.code).to.equal(1);
    expect(refused.notes.join('\n')).to.contain(`receipt checkpoint does not hold: the pinned tree of 7 leaves holds 1 event after position ${registeredAt}, where the answer's data was read: the answer had not seen it`);

    // A checkpoint pinned by a signature that does not cover the position its data was read at: refused too.
    const unpositioned = await verifyReceipt(signedByHand(honest, {}, ['"x-read-model-position"']));
    expect(unpositioned.code).to.equal(1);
    expect(unpositioned.notes.join('\n')).to.contain('receipt checkpoint does not hold: the receipt pins a checkpoint but its signature does not cover the position its data was read at (X-Read-Model-Position)');
  });
});
