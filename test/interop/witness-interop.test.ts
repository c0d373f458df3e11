/**
 * Witnesses, ours and one written elsewhere (docs/audit.md, "Witnesses"): litewitness (filippo.io/torchwood v0.6.1,
 * built from the Go module proxy) beside two `watchcat witness` processes. The log's publisher (log-publisher.ts,
 * configured with the three) submits each checkpoint it signs, and its routes (transparency-routes.ts) serve it with
 * the cosignatures of all three, each a cosignature/v1 line our verifier accepts under the key that witness printed.
 * A forked log (another history signed with the same key: two trees at one size, then a larger tree of the other
 * history), submitted with its own consistency proofs (shared/read-model/transparency/witness-client.ts), is refused by every
 * one of them; and each, SIGKILLed and started again, still holds the tree it cosigned (409 with its size) and
 * cosigns the next.
 *
 * The serial index is committed by an extension line, which the tree's root does not cover (docs/audit.md, "Serial
 * index proofs"). C2SP tlog-witness asks a witness holding size N, given old size N, only to compare the roots:
 * litewitness then cosigns another body of the same tree, one committing another index, and two index proof files,
 * STOLEN and NOT_FOUND for one serial at one checkpoint size, both meet a policy whose quorum it alone makes. Ours
 * refuses that body as a fork (422), so neither meets a quorum that needs it.
 */
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { expect } from 'chai';
import Koa from 'koa';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import { indexProofFile, verifyIndexProof } from '../../services/audit/receipt/index-proof.ts';
import { checkpointBody, parseCheckpoint } from '../../shared/read-model/transparency/checkpoint.ts';
import { indexExtension, SerialIndex } from '../../shared/read-model/transparency/serial-index.ts';
import { parseNote, signNote, verifierKey } from '../../shared/read-model/transparency/signed-note.ts';
import { parsePolicy } from '../../shared/read-model/transparency/tlog-policy.ts';
import { vrfKey } from '../../shared/read-model/transparency/vrf.ts';
import { cosignatureTime, parseCosignerKey } from '../../shared/read-model/transparency/cosignature.ts';
import { requestCosignature, type CosignOutcome, type WitnessEndpoint } from '../../shared/read-model/transparency/witness-client.ts';
import type { TransparencyLog } from '../../read-api/transparency/log-publisher.ts';
import { transparencyRoutes } from '../../read-api/transparency/transparency-routes.ts';
import { serialRegistered } from '../fixtures/events.ts';
import { cannotRun, registerLegSuite } from '../support/legs.ts';
import { buildLitewitness, startKeyAgent, startLitewitness, type Litewitness } from '../support/litewitness.ts';
import { signedLogOf } from '../support/signed-log.ts';
import { until } from '../support/until.ts';
import { startWatchcatProcess, type WatchcatProcess } from '../support/watchcat-process.ts';

const ORIGIN = 'watch.example/watchcat/events';
const onPath = (tool: string) => (process.env['PATH'] ?? '').split(delimiter).some((dir) => existsSync(join(dir, tool)));
const CLI = 'services/cli/watchcat.ts';

interface Served { url: string; note: string; size: number }

describe('witnesses: litewitness and two of ours cosign the log\'s checkpoints, refuse a fork, keep their state', function () {
  registerLegSuite('Go', this);
  this.timeout(300_000);

  let dir = '';
  const stores: EventStore[] = [];
  const logs: TransparencyLog[] = [];
  const ours: WatchcatProcess[] = [];
  const stops: Array<() => Promise<void>> = [];
  let server: Server | undefined;
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
    for (const witness of ours.splice(0)) await witness.kill();
    if (server) await new Promise((resolve) => server!.close(resolve));
    for (const log of logs.splice(0)) await log.stop();
    for (const store of stores.splice(0)) await store.close();
    server = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The log's routes on one port, serving whichever signed log is current (the honest one, or a fork of it). */
  let current: TransparencyLog | undefined;
  const serveLog = async (): Promise<string> => {
    server = new Koa().use((ctx, next) => transparencyRoutes(current!)(ctx, next)).listen(0, '127.0.0.1');
    await once(server, 'listening');
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const appendSerials = async (store: EventStore, from: number, count: number, tag: string) => {
    for (let i = from; i < from + count; i += 1) await store.append(`serial-${tag}SN-${i}`, [serialRegistered(`${tag}SN-${i}`)], 'no_stream');
  };
  /** The log of `store` as signed now, made the one served; its checkpoint as served (with what it gathered from `witnesses`). */
  const publish = async (base: string, store: EventStore, key: KeyObject, witnesses: WitnessEndpoint[] = []): Promise<Served> => {
    const { log } = await signedLogOf(store, key, ORIGIN, undefined, { witnesses, timeoutMs: 10_000 });
    logs.push(log);
    current = log;
    const note = await (await fetch(`${base}/transparency/checkpoint`)).text();
    return { url: base, note, size: Number(note.split('\n')[1]) };
  };
  /** The served checkpoint once it carries a cosignature by each of `witnesses` that verifies. */
  const cosignedByAll = async (served: Served, witnesses: WitnessEndpoint[], what: string): Promise<string> => {
    const text = served.note.slice(0, served.note.indexOf('\n\n') + 1);
    let note = '';
    await until(`${what}: a cosignature of each witness served`, async () => {
      note = await (await fetch(`${served.url}/transparency/checkpoint`)).text();
      const { signatures } = parseNote(note);
      return witnesses.every((witness) => signatures.some((signature) => cosignatureTime(text, signature, witness.verifier) !== undefined));
    }, 30_000);
    expect(note.startsWith(text), what).to.equal(true);
    return note;
  };
  const submit = (witness: WitnessEndpoint, served: Served, oldSize = 0): Promise<CosignOutcome> => requestCosignature(witness, {
    note: served.note, size: served.size, oldSize, timeoutMs: 10_000,
    proofOf: async (from, to) => {
      const answer = await (await fetch(`${served.url}/api/public/transparency/consistency?from=${from}&to=${to}`)).json() as { proof: string[] };
      return answer.proof.map((hash) => Buffer.from(hash, 'base64'));
    },
  });
  const ourWitness = async (name: string, logKey: string): Promise<{ endpoint: WitnessEndpoint; process: WatchcatProcess; key: string }> => {
    const state = join(dir, name);
    const child = startWatchcatProcess(name, CLI, {}, ['witness', '--name', `witness.example/${name}`, '--log', logKey,
      '--state', join(state, 'state.json'), '--key', join(state, 'key.pem'), '--port', '0']);
    ours.push(child);
    await child.waitForLine(/listening on http:/);
    const url = /listening on (http:\/\/\S+)/.exec(child.lines.find((line) => line.includes('listening on'))!)![1]!;
    const key = /verifier key (\S+)/.exec(child.lines.find((line) => line.includes('verifier key'))!)![1]!;
    return { endpoint: { url, verifier: parseCosignerKey(key) }, process: child, key };
  };
  const lite = (witness: Litewitness): WitnessEndpoint => ({ url: witness.url, verifier: parseCosignerKey(witness.verifierKey) });
  /** Each outcome a cosignature that verifies over the served checkpoint's text under that witness's key. */
  const expectCosigned = (outcomes: CosignOutcome[], witnesses: WitnessEndpoint[], served: Served, what: string) => {
    const text = served.note.slice(0, served.note.indexOf('\n\n') + 1);
    outcomes.forEach((outcome, i) => {
      expect(outcome, `${what}: ${witnesses[i]!.verifier.name}`).to.include({ cosigned: true });
      const [signature] = parseNote(`${text}\n${(outcome as { line: string }).line}`).signatures;
      expect(cosignatureTime(text, signature!, witnesses[i]!.verifier), `${what}: ${witnesses[i]!.verifier.name}`).to.be.a('number');
    });
  };

  /** A log key, and litewitness started for its log (its key in an ssh-agent) in a new directory; the test marked as not run when it cannot run here. */
  const withLitewitness = async (test: Mocha.Context, prefix: string) => {
    const built = await buildLitewitness();
    if ('why' in built) return cannotRun(test, 'Go', built.why);
    const missing = ['ssh-agent', 'ssh-add', 'ssh-keygen'].filter((tool) => !onPath(tool));
    if (missing.length > 0) return cannotRun(test, 'Go', `litewitness keeps its key in an ssh-agent: ${missing.join(', ')} not on the PATH (Debian's openssh-client)`);
    dir = mkdtempSync(join(tmpdir(), prefix));
    const logKey = generateKeyPairSync('ed25519').privateKey;
    const logVerifierKey = verifierKey(ORIGIN, logKey);
    const liteDir = join(dir, 'lite');
    mkdirSync(liteDir);
    const agent = await startKeyAgent(liteDir);
    stops.push(agent.stop);
    const litewitness = await startLitewitness(built.program, liteDir, 'witness.example/lite', agent, { origin: ORIGIN, verifierKey: logVerifierKey });
    stops.push(() => litewitness.kill());
    return { program: built.program, liteDir, agent, litewitness, logKey, logVerifierKey };
  };

  it('all three cosign as the log grows, all three refuse a fork, and each keeps its tree across a SIGKILL', async function () {
    const started = await withLitewitness(this, 'watchcat-witness-interop-');
    const { liteDir, agent, logKey, logVerifierKey } = started;
    let { litewitness } = started;
    const [first, second] = [await ourWitness('w1', logVerifierKey), await ourWitness('w2', logVerifierKey)];
    const witnesses = [lite(litewitness), first!.endpoint, second!.endpoint];

    const honest = openSqliteEventStore(join(dir, 'honest.sqlite3'));
    stores.push(honest);
    const base = await serveLog();
    await appendSerials(honest, 0, 5, 'A');
    // The log submits each checkpoint it signs to the three, and serves it with their cosignatures.
    const five = await publish(base, honest, logKey, witnesses);
    expect(five.size).to.equal(5);
    // The checkpoint commits the serial index in an extension line (docs/audit.md, "Serial index proofs"): what the
    // witnesses cosign is the note with that line, so litewitness is shown to take one.
    expect(five.note.split('\n')[3]).to.match(/^watchcat\/serial-index\/v1 \S+ \S+$/);
    await cosignedByAll(five, witnesses, 'first checkpoint');
    await appendSerials(honest, 5, 4, 'A');
    const nine = await publish(base, honest, logKey, witnesses);
    await cosignedByAll(nine, witnesses, 'grown by a consistency proof');

    // The same key signs another history: a tree of 9 leaves with another root, then one of 12.
    const forked = openSqliteEventStore(join(dir, 'forked.sqlite3'));
    stores.push(forked);
    await appendSerials(forked, 0, 9, 'B');
    const forkNine = await publish(base, forked, logKey);
    expect(forkNine.size).to.equal(9);
    expect(forkNine.note).not.to.equal(nine.note);
    for (const outcome of await Promise.all(witnesses.map((witness) => submit(witness, forkNine, 9)))) expect(outcome).to.include({ cosigned: false, status: 422 });
    await appendSerials(forked, 9, 3, 'B');
    const forkTwelve = await publish(base, forked, logKey);
    for (const outcome of await Promise.all(witnesses.map((witness) => submit(witness, forkTwelve, 9)))) expect(outcome).to.include({ cosigned: false, status: 422 });
    await first!.process.waitForLine(/witness refused a fork/);

    // SIGKILLed and started on the same state: each still holds the honest tree of 9.
    await litewitness.kill();
    litewitness = await startLitewitness(started.program, liteDir, 'witness.example/lite', agent);
    await first!.process.kill();
    const restarted = await ourWitness('w1', logVerifierKey);
    const after = [lite(litewitness), restarted.endpoint, second!.endpoint];
    expect(after[1]!.verifier.id.equals(witnesses[1]!.verifier.id), 'our witness keeps its key').to.equal(true);
    await appendSerials(honest, 9, 3, 'A');
    const twelve = await publish(base, honest, logKey);
    const held = await Promise.all(after.map(async (witness) => {
      const response = await fetch(`${witness.url}/add-checkpoint`, { method: 'POST', body: `old 0\n\n${twelve.note}` });
      return `${response.status} ${response.headers.get('content-type')} ${await response.text()}`;
    }));
    expect(held).to.deep.equal(after.map(() => '409 text/x.tlog.size 9\n'));
    expectCosigned(await Promise.all(after.map((witness) => submit(witness, twelve))), after, twelve, 'after the restart');
    await appendSerials(honest, 12, 2, 'A');
    await cosignedByAll(await publish(base, honest, logKey, after), after, 'submitted by the log after the restart');
  });

  it('litewitness cosigns the tree it holds with another serial index line, ours refuses it as a fork', async function () {
    const started = await withLitewitness(this, 'watchcat-witness-split-');
    const { litewitness, logKey, logVerifierKey } = started;
    const ours = await ourWitness('w1', logVerifierKey);
    const witnesses = [lite(litewitness), ours.endpoint];
    const honest = openSqliteEventStore(join(dir, 'honest.sqlite3'));
    stores.push(honest);
    const base = await serveLog();
    await appendSerials(honest, 0, 5, 'A');
    const five = await publish(base, honest, logKey, witnesses);
    await cosignedByAll(five, witnesses, 'the honest checkpoint');

    // The log's key signs two more bodies of the same tree (size 5, same root), each committing an index of its own
    // (any VRF key will do: the line names it): in one the serial ASN-0 is STOLEN, in the other it is absent.
    const tree = parseCheckpoint(five.note.slice(0, five.note.indexOf('\n\n') + 1));
    const split = (['STOLEN', 'NOT_FOUND'] as const).map((status) => {
      const index = new SerialIndex(vrfKey(randomBytes(32)));
      if (status === 'STOLEN') index.set('ASN-0', 'STOLEN');
      const body = checkpointBody({ ...tree, extensions: [indexExtension({ root: index.root(), vrfPublicKey: index.vrfPublicKey })] });
      return { status, body, note: signNote(body, ORIGIN, logKey), answer: index.answer('ASN-0') };
    });
    expect(new Set([five.note.split('\n')[3], ...split.map(({ body }) => body.split('\n')[3])]).size, 'three index lines').to.equal(3);
    const answers = async (witness: WitnessEndpoint, note: string) => {
      const response = await fetch(`${witness.url}/add-checkpoint`, { method: 'POST', body: `old 5\n\n${note}` });
      return { status: response.status, text: await response.text() };
    };

    // litewitness (C2SP's check: old size is the size it holds, and at equal sizes the roots are equal) cosigns both.
    const cosigned: string[] = [];
    for (const { status, body, note } of split) {
      const answer = await answers(witnesses[0]!, note);
      expect(answer.status, `litewitness, the ${status} index: ${answer.text}`).to.equal(200);
      expect(answer.text).to.match(/^\u2014 witness\.example\/lite \S+\n$/);
      const [signature] = parseNote(`${body}\n${answer.text}`).signatures;
      expect(cosignatureTime(body, signature!, witnesses[0]!.verifier), 'its cosignature verifies over the other body').to.be.a('number');
      cosigned.push(`${note}${answer.text}`);
    }
    // Ours holds the body it cosigned at that size: another is a fork.
    for (const { status, note } of split) {
      const answer = await answers(witnesses[1]!, note);
      expect(answer.status, `ours, the ${status} index: ${answer.text}`).to.equal(422);
      expect(answer.text).to.match(/fork: another checkpoint body for the tree of 5 leaves/);
    }
    await ours.process.waitForLine(/witness refused a fork/);

    // Two files, STOLEN and NOT_FOUND for ASN-0 at checkpoint 5: a policy whose quorum litewitness alone makes
    // accepts both; one that needs our witness too accepts neither.
    const policy = (quorum: string) => parsePolicy([
      `log ${logVerifierKey}`, `witness lite ${litewitness.verifierKey}`, `witness w1 ${ours.key}`,
      'group both all lite w1', `quorum ${quorum}`,
    ].join('\n'));
    const files = split.map(({ answer }, i) => indexProofFile(answer, cosigned[i]!));
    expect(files.map((file) => verifyIndexProof(file, logVerifierKey, policy('lite'))).map(({ size, status }) => `${size} ${status}`))
      .to.deep.equal(['5 STOLEN', '5 NOT_FOUND']);
    for (const file of files) expect(() => verifyIndexProof(file, logVerifierKey, policy('both'))).to.throw(/quorum \(both\)/);
  });
});
