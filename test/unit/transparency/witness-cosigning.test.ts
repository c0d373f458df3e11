/**
 * The log's side of the witnesses (docs/audit.md, "Witnesses"; TRANSPARENCY_WITNESSES): each new checkpoint is
 * submitted to the witnesses configured and served with the cosignatures they answer, as extra signature lines that
 * Go's note.Open leaves aside while it opens the log's own signature (today's readers keep working). A witness that
 * hangs or is down holds up neither signing nor serving, and its cosignature is added when it comes back; a witness
 * that refuses (it holds another tree) adds nothing, and the refusal is logged.
 */
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { pino } from 'pino';
import { openSqliteEventStore } from '../../../shared/adapters/sqlite-event-store.ts';
import { createLogger } from '../../../shared/logging/logger.ts';
import type { EventStore } from '../../../shared/ports/event-store.ts';
import { cosignatureTime, parseCosignerKey } from '../../../shared/read-model/transparency/cosignature.ts';
import { openNote, parseNote, parseVerifierKey, verifierKey } from '../../../shared/read-model/transparency/signed-note.ts';
import type { WitnessEndpoint } from '../../../shared/read-model/transparency/witness-client.ts';
import type { TransparencyLog } from '../../../read-api/transparency/log-publisher.ts';
import { transparencyRoutes } from '../../../read-api/transparency/transparency-routes.ts';
import { Witness, type WitnessedTree } from '../../../services/witness/witness.ts';
import { witnessApp } from '../../../services/witness/witness-app.ts';
import { openTrusted } from '../../../services/audit/log-key-trust.ts';
import { serialRegistered } from '../../fixtures/events.ts';
import { askGo, buildGoTlog } from '../../support/go-tlog.ts';
import { cannotRun } from '../../support/legs.ts';
import { signedLogOf } from '../../support/signed-log.ts';
import { until } from '../../support/until.ts';

const ORIGIN = 'watch.example/watchcat/events';

describe('transparency log: checkpoints submitted to witnesses and served with their cosignatures', function () {
  this.timeout(120_000);
  const logKey = generateKeyPairSync('ed25519').privateKey;
  let events: EventStore;
  const servers: Server[] = [];
  const logs: TransparencyLog[] = [];
  beforeEach(async () => {
    events = openSqliteEventStore(':memory:');
    for (let i = 0; i < 6; i += 1) await events.append(`serial-SN-${i}`, [serialRegistered(`SN-00${i}`)], 'no_stream');
  });
  afterEach(async () => {
    for (const log of logs.splice(0)) await log.stop();
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    await events.close();
  });

  const listening = async (server: Server, port = 0): Promise<string> => {
    servers.push(server);
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  /** A witness of ours in this process, served on demand; `holding`: a tree it holds already. */
  const ourWitness = (name: string, holding?: WitnessedTree) => {
    const trees = new Map<string, WitnessedTree>(holding ? [[ORIGIN, holding]] : []);
    const own = new Witness({
      name, key: generateKeyPairSync('ed25519').privateKey, logs: [parseVerifierKey(verifierKey(ORIGIN, logKey))],
      store: { get: (origin) => trees.get(origin), put: async (origin, tree) => { trees.set(origin, tree); } },
    });
    const verifier = parseCosignerKey(own.verifierKey);
    const serve = async (port = 0): Promise<WitnessEndpoint> =>
      ({ url: await listening(createServer(witnessApp(own, createLogger('silent', 'witness')).callback()), port), verifier });
    return { verifier, serve };
  };
  const served = async (log: TransparencyLog): Promise<() => Promise<string>> => {
    const base = await listening(createServer(new Koa().use(transparencyRoutes(log)).callback()));
    return async () => (await fetch(`${base}/transparency/checkpoint`)).text();
  };
  const cosignedBy = (note: string, witness: WitnessEndpoint): boolean => {
    const { text, signatures } = parseNote(note);
    return signatures.some((signature) => cosignatureTime(text, signature, witness.verifier) !== undefined);
  };

  it('serves the checkpoint with each witness\'s cosignature, which Go\'s note.Open and the monitor leave aside', async function () {
    const witnesses = [await ourWitness('witness.example/w1').serve(), await ourWitness('witness.example/w2').serve()];
    const { log } = await signedLogOf(events, logKey, ORIGIN, undefined, { witnesses });
    logs.push(log);
    const checkpoint = await served(log);
    let note = '';
    await until('both cosignatures served', async () => {
      note = await checkpoint();
      return witnesses.every((witness) => cosignedBy(note, witness));
    });
    expect(parseNote(note).signatures.map((signature) => signature.name)).to.deep.equal([ORIGIN, 'witness.example/w1', 'witness.example/w2']);
    // The tree, and the serial index's line (serial-index.ts), under the log's signature.
    expect(openNote(note, verifierKey(ORIGIN, logKey))).to.equal(`${ORIGIN}\n6\n${note.split('\n')[2]}\n${note.split('\n')[3]}\n`);
    expect(note.split('\n')[3]).to.match(/^watchcat\/serial-index\/v1 /);
    expect((await openTrusted(note, [verifierKey(ORIGIN, logKey)], async () => [])).learned).to.deep.equal([]);
    const built = await buildGoTlog();
    if ('why' in built) return cannotRun(this, 'Go', built.why);
    const go = await askGo(built.program, {
      entries: [], inclusion: [], consistency: [], notes: [], verifier_key: verifierKey(ORIGIN, logKey), tiles: [],
      keyed_notes: [{ note, verifier_key: verifierKey(ORIGIN, logKey) }],
    });
    expect(go.keyed_notes[0]).to.deep.include({ error: '', origin: ORIGIN, size: 6, verified: 1, unverified: 2 });
  });

  it('signs and serves while one witness hangs and another is down, and adds the late one\'s cosignature when it is back', async () => {
    const hanging: WitnessEndpoint = { url: await listening(createServer(() => undefined)), verifier: ourWitness('witness.example/hang').verifier };
    const closed = createServer();
    const downPort = Number(new URL(await listening(closed)).port);
    servers.splice(servers.indexOf(closed), 1);
    await new Promise((resolve) => closed.close(resolve));
    const lateOne = ourWitness('witness.example/late');
    const late: WitnessEndpoint = { url: `http://127.0.0.1:${downPort}`, verifier: lateOne.verifier };
    const up = await ourWitness('witness.example/up').serve();
    const started = performance.now();
    const { log } = await signedLogOf(events, logKey, ORIGIN, undefined, { witnesses: [hanging, late, up], timeoutMs: 2_000, retryMs: 300 });
    logs.push(log);
    const checkpoint = await served(log);
    expect(await checkpoint()).to.match(new RegExp(`^${ORIGIN}\\n6\\n`));
    expect(performance.now() - started, 'signed and served before the hanging witness\'s deadline').to.be.below(2_000);
    await until('the witness that is up cosigned, before the hanging one\'s deadline', async () => cosignedBy(await checkpoint(), up), 1_500);
    expect(cosignedBy(await checkpoint(), late)).to.equal(false);
    await lateOne.serve(downPort);
    await until('the late witness cosigned on a retry', async () => cosignedBy(await checkpoint(), late), 10_000);
    expect(cosignedBy(await checkpoint(), up), 'the earlier cosignature kept').to.equal(true);
  });

  it('serves no cosignature of a witness that refuses (it holds another tree of that size), and logs why', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => { lines.push(line); } });
    const forked = { size: 6, root: Buffer.alloc(32, 1).toString('base64'), note: '' };
    const refusing = await ourWitness('witness.example/forked', forked).serve();
    const honest = await ourWitness('witness.example/honest').serve();
    const { log } = await signedLogOf(events, logKey, ORIGIN, undefined, { witnesses: [refusing, honest] }, logger);
    logs.push(log);
    const checkpoint = await served(log);
    await until('the honest witness cosigned', async () => cosignedBy(await checkpoint(), honest));
    await until('the refusal logged', () => lines.some((line) => line.includes('witness.example/forked did not cosign the tree of 6 leaves')));
    expect(cosignedBy(await checkpoint(), refusing)).to.equal(false);
    expect(lines.find((line) => line.includes('witness.example/forked'))).to.include('"status":422');
  });
});
