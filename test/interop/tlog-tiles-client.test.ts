/**
 * Issue 44, item 4: the running service's transparency log read by a C2SP tlog-tiles client nobody here wrote, from
 * one base URL per audience. The whole service runs as a real process (`main.ts`, the demo catalogue loaded, the log
 * key and PUBLIC_BASE_URL given as a deployment gives them); a small Go program (test/interop/tlog-client) then reads
 * it with filippo.io/torchwood: the checkpoint and the hash tiles from `<public>/transparency`, every entry from
 * `<admin>/admin/transparency` with the README's audit key, each checked by torchwood against the signed tree. The
 * checkpoints are opened by golang.org/x/mod/sumdb/note with a verifier derived from the key the test made, the
 * inclusion proofs (by index, and by `position=` alone) and the consistency proof from a checkpoint kept before an
 * append are checked by x/mod's tlog and by transparency-dev/merkle, and merkle's compact range rebuilds the root
 * from the entries. Expected values come from the contract (docs/api.md, "Transparency log") and from the test's
 * own requests: the origin from PUBLIC_BASE_URL, the key from the test, the appended event from its answer.
 */
import { createHash, createPrivateKey, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { askGoProgram, buildGoProgram } from '../support/go-program.ts';
import { cannotRun, registerLegSuite } from '../support/legs.ts';
import { goSignerKey } from '../support/note-keys.ts';
import { responseValidator } from '../support/openapi-response-validator.ts';
import { freePort } from '../support/redis-server.ts';
import { historyEntry, newSigningKeyPem } from '../support/signing-keys.ts';
import { startWatchcatProcess, type WatchcatProcess } from '../support/watchcat-process.ts';

const CLIENT_SOURCE = fileURLToPath(new URL('./tlog-client', import.meta.url));
const PUBLIC_BASE_URL = 'https://watch.example';
/** The contract's origin: `<host of PUBLIC_BASE_URL>/watchcat/events`. */
const ORIGIN = 'watch.example/watchcat/events';
const ORIGIN_WARNING = /transparency log's origin is/;

interface Opened { error: string; text: string; origin: string; size: number; root: string }
interface Proved { index: number; leaf_hash: string; served: string[]; from_tiles: string[] | null; merkle: string; tlog: string; error: string }
interface ClientAnswer {
  public: Opened;
  admin: Opened;
  earlier: Opened;
  tile_root: string;
  tile_error: string;
  entries: string[];
  entries_error: string;
  entries_root: string;
  last_entry: string;
  inclusion: Proved[];
  by_position: Proved;
  consistency: Proved;
  public_paths: string[];
  admin_paths: string[];
}

interface Service { process: WatchcatProcess; public: string; admin: string; dir: string }

async function startService(env: Record<string, string>): Promise<Service> {
  const dir = await mkdtemp(join(tmpdir(), 'watchcat-tlog-client-'));
  const [port, opsPort, adminPort] = [await freePort(), await freePort(), await freePort()];
  const process = startWatchcatProcess('watchcat', 'main.ts', {
    PORT: String(port), OPS_PORT: String(opsPort), ADMIN_PORT: String(adminPort), HOST: '127.0.0.1', DATA_DIR: dir,
    EVENTSTORE_URL: '', MONGODB_URL: '', REDIS_URL: '', PUBLIC_BASE_URL: '', LOG_LEVEL: 'info', READ_SNAPSHOT_SECONDS: '0',
    RATE_LIMIT_PER_MINUTE: '100000', FILE_RATE_LIMIT_PER_MINUTE: '100000', ...env,
  });
  await process.waitForLine(/watchcat is serving/, 120_000);
  return { process, public: `http://127.0.0.1:${port}`, admin: `http://127.0.0.1:${adminPort}`, dir };
}

async function stopService(service: Service | undefined): Promise<void> {
  await service?.process.stop();
  if (service) await rm(service.dir, { recursive: true, force: true });
}

/** The latest checkpoint once one has more than `size` leaves. */
async function checkpointBeyond(base: string, size: number): Promise<{ text: string; size: number }> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const answer = await fetch(`${base}/transparency/checkpoint`);
    const text = await answer.text();
    const served = Number(text.split('\n')[1]);
    if (answer.status === 200 && served > size) return { text, size: served };
    if (Date.now() > deadline) throw new Error(`no checkpoint beyond ${size} leaves within 20 s: ${answer.status} ${text}`);
    await sleep(50);
  }
}

const leafHash = (entry: Buffer) => createHash('sha256').update(Buffer.of(0)).update(entry).digest('base64');

describe('the running service\'s transparency log, read by torchwood from one base URL per audience and checked by x/mod and transparency-dev/merkle', function () {
  registerLegSuite('Go', this);
  this.timeout(240_000);
  let service: Service | undefined;
  afterEach(async () => {
    await stopService(service);
    service = undefined;
  });

  it('serves a checkpoint, tiles and entries that a tlog-tiles client reads and verifies from <public>/transparency and <admin>/admin/transparency', async function () {
    const built = await buildGoProgram(CLIENT_SOURCE, 'filippo.io/torchwood, golang.org/x/mod and github.com/transparency-dev/merkle');
    if ('why' in built) return cannotRun(this, 'Go', built.why);
    const logKey = newSigningKeyPem();
    const keys = { catalogue: randomBytes(24).toString('hex'), serials: randomBytes(24).toString('hex'), audit: randomBytes(24).toString('hex') };
    service = await startService({
      SEED_DEMO: 'true', PUBLIC_BASE_URL,
      ADMIN_API_KEYS: Object.entries(keys).map(([scope, key]) => `${key}:${scope}`).join(','),
      TRANSPARENCY_LOG_KEY: logKey, TRANSPARENCY_LOG_KEYS: JSON.stringify({ keys: [historyEntry(logKey, { nbf: Math.floor(Date.now() / 1000) - 60 })] }),
    });
    const { public: publicUrl, admin: adminUrl } = service;

    // A checkpoint kept before an append, the append (its position from the admin API's answer), one covering it.
    const earlier = await checkpointBeyond(publicUrl, 0);
    const changed = await fetch(`${adminUrl}/admin/watches/AUR-SP-001/price`, {
      method: 'PUT', headers: { authorization: `Bearer ${keys.catalogue}`, 'content-type': 'application/json' }, body: JSON.stringify({ price_eur: 12_345 }),
    });
    expect(changed.status, await changed.clone().text()).to.equal(200);
    const { position } = (await changed.json()) as { position: number };
    const latest = await checkpointBeyond(publicUrl, earlier.size);

    const go = await askGoProgram<ClientAnswer>(built.program, {
      public_base: `${publicUrl}/transparency`, admin_base: `${adminUrl}/admin/transparency`, audit_key: keys.audit,
      proofs: `${publicUrl}/api/public/transparency`, signer_key: goSignerKey(ORIGIN, createPrivateKey(logKey)),
      earlier: earlier.text, position, indexes: [0, 255, 256, 1000, latest.size - 1],
    });

    // Both bases give the same checkpoint, opened by note with the test's own key, under the contract's origin.
    expect(go.public).to.deep.include({ error: '', origin: ORIGIN, size: latest.size });
    expect(go.admin).to.deep.include({ error: '', text: go.public.text });
    expect(go.earlier).to.deep.include({ error: '', origin: ORIGIN, size: earlier.size });
    // Every event is a leaf, in event-store order: the appended event is the last leaf, at the position it was given.
    const size = go.public.size;
    expect(size, 'leaves: the events of positions 1 to the appended one').to.equal(position);
    expect(size).to.be.above(2 * 256, 'full tiles and a partial one');

    // The tree read through the public tiles alone, each checked against the signed root by tlog.
    expect(go.tile_error).to.equal('');
    expect(go.tile_root).to.equal(go.public.root);
    // Every entry, read by torchwood from the admin base and checked against the tree; merkle's root of them.
    expect(go.entries_error).to.equal('');
    expect(go.entries).to.have.length(size);
    expect(go.entries_root, 'transparency-dev/merkle\'s root of the entries').to.equal(go.public.root);
    expect(go.last_entry).to.equal(go.entries[size - 1]);
    const entries = go.entries.map((entry) => Buffer.from(entry, 'base64'));
    for (const entry of [entries[0]!, entries[size - 1]!]) {
      expect(Object.keys(JSON.parse(entry.toString('utf8')) as object)).to.have.members(['stream', 'revision', 'id', 'type', 'data', 'metadata']);
    }
    const appended = JSON.parse(entries[size - 1]!.toString('utf8')) as { type: string; stream: string };
    expect(appended.type).to.equal('WatchPriceChanged');
    expect(appended.stream).to.include('AUR-SP-001');

    // Proofs served by the public API, checked by both libraries; by index, the very proof tlog reads from the tiles.
    for (const proved of go.inclusion) {
      expect(proved, `leaf ${proved.index}`).to.deep.include({ error: '', merkle: '', tlog: '' });
      expect(proved.served, `leaf ${proved.index}`).to.deep.equal(proved.from_tiles ?? []);
    }
    expect(go.inclusion.map((proved) => proved.index)).to.deep.equal([0, 255, 256, 1000, size - 1]);
    expect(go.by_position, 'position= alone, against the latest checkpoint').to.deep.include({ error: '', merkle: '', tlog: '', index: size - 1, leaf_hash: leafHash(entries[size - 1]!) });
    expect(go.consistency, `from ${earlier.size} to ${size}`).to.deep.include({ error: '', merkle: '', tlog: '' });

    // One base URL per audience: the public client asked nothing outside /transparency, the auditor's nothing outside
    // /admin/transparency, where it read the entry bundles, the last one partial.
    expect(go.public_paths).to.include('/transparency/checkpoint');
    expect(go.public_paths.every((path) => path.startsWith('/transparency/tile/') || path === '/transparency/checkpoint'), go.public_paths.join(' ')).to.equal(true);
    expect(go.admin_paths).to.include.members(['/admin/transparency/checkpoint', '/admin/transparency/tile/entries/000', `/admin/transparency/tile/entries/${String(Math.floor(size / 256)).padStart(3, '0')}.p/${size % 256}`]);
    expect(go.admin_paths.every((path) => path.startsWith('/admin/transparency/')), go.admin_paths.join(' ')).to.equal(true);

    // Entries only to the audit scope; none on the public port.
    const bundle = '/admin/transparency/tile/entries/000';
    expect((await fetch(`${adminUrl}${bundle}`)).status, 'no key').to.equal(401);
    expect((await fetch(`${adminUrl}${bundle}`, { headers: { authorization: `Bearer ${keys.catalogue}` } })).status, 'a catalogue key').to.equal(403);
    expect((await fetch(`${publicUrl}/transparency/tile/entries/000`)).status, 'the public port').to.equal(404);

    // The answers match what the service's own OpenAPI document says of them.
    const openapi = responseValidator((await (await fetch(`${publicUrl}/.well-known/openapi-public.json`)).json()) as Record<string, unknown>);
    openapi.check('GET', '/.well-known/transparency/keys', 200, await (await fetch(`${publicUrl}/.well-known/transparency/keys`)).json());
    openapi.check('GET', '/api/public/transparency/inclusion', 200, await (await fetch(`${publicUrl}/api/public/transparency/inclusion?position=${position}`)).json());
    expect((await fetch(`${publicUrl}/transparency/checkpoint`)).headers.get('content-type')).to.equal('text/plain; charset=utf-8');
    expect(service.process.lines.filter((line) => ORIGIN_WARNING.test(line)), 'no warning of a local origin').to.deep.equal([]);
  });

  it('signs under localhost/watchcat/events without PUBLIC_BASE_URL, and says so in one warning line at start', async () => {
    service = await startService({ SEED_DEMO: 'false' });
    const warnings = service.process.lines.filter((line) => ORIGIN_WARNING.test(line)).map((line) => JSON.parse(line) as { level: number; msg: string; origin: string });
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.include({ level: 40, origin: 'localhost/watchcat/events' });
    expect(warnings[0]!.msg).to.include('set PUBLIC_BASE_URL');
    const key = await (await fetch(`${service.public}/.well-known/transparency/key`)).text();
    expect(key.split('+')[0], 'the verifier key is named after the origin').to.equal('localhost/watchcat/events');
  });
});
