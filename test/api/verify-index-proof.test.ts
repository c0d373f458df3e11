/**
 * Proof-carrying verifications (issue 45, item 3; docs/audit.md, "Serial index proofs"): with `proof=index`, over
 * HTTP and over MCP (the SDK's client), the answer carries the serial's VRF proof and index proof and the signed
 * checkpoint committing the index; the proofs check under that checkpoint's line (`verifyIndexAnswer`, the
 * checkpoint opened with the log's verifier key) for AUTHENTIC, STOLEN and NOT_FOUND serials, and the answer's status
 * is the one proved there: for a theft the log holds but the serials read model has not applied (projected on
 * another worker), STOLEN, where the plain answer still says AUTHENTIC. The offline file made of an answer passes
 * `watchcat receipt verify FILE --log-key KEY`. Over a log projected in part before the index's changes existed, the
 * proof is refused (503), saying in the request's language that the index is not built; so is an AUTHENTIC or a
 * NOT_FOUND the index proves while the registry has left it (the index behind: a theft, a registration).
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { indexProofs, startTransparencyLog, type TransparencyLog } from '../../read-api/transparency/log-publisher.ts';
import { transparencyRoutes } from '../../read-api/transparency/transparency-routes.ts';
import { indexProofFile } from '../../services/audit/receipt/index-proof.ts';
import { createCliContext } from '../../services/cli/cli-context.ts';
import { run } from '../../services/cli/program.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import type { EventStore } from '../../shared/ports/event-store.ts';
import type { ReadStore } from '../../shared/ports/read-store.ts';
import { PROJECTIONS } from '../../shared/read-model/projections/index.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { parseCheckpoint } from '../../shared/read-model/transparency/checkpoint.ts';
import { indexCommitmentOf, verifyIndexAnswer, type IndexStatus } from '../../shared/read-model/transparency/serial-index.ts';
import { openNote, verifierKey } from '../../shared/read-model/transparency/signed-note.ts';
import { collectionDefined, serialRegistered, serialReportedStolen } from '../fixtures/events.ts';
import { curlSi } from '../support/curl-si.ts';
import { connectedClient, MCP_HEADERS, toolCall } from '../support/mcp-client.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';
import { logProjection, logProjectionUpgradedAfter } from '../support/signed-log.ts';
import { testSigningKeys } from '../support/signing-keys.ts';

const ORIGIN = 'watch.example/watchcat/events';
/** Registered; registered and reported stolen; never registered; stolen in the log only (the read model behind). */
const SERIALS: Record<string, { status: IndexStatus; plain: IndexStatus }> = {
  'IP-2024-0001': { status: 'AUTHENTIC', plain: 'AUTHENTIC' },
  'IP-2024-0002': { status: 'STOLEN', plain: 'STOLEN' },
  'IP-2024-0404': { status: 'NOT_FOUND', plain: 'NOT_FOUND' },
  'IP-2024-0007': { status: 'STOLEN', plain: 'AUTHENTIC' },
};

/** The read API over `readStore`, with the log's publisher signing it under `key` and answering proofs from it. */
async function serve(readStore: ReadStore, key: KeyObject): Promise<{ log: TransparencyLog; api: ReadApiUnderTest }> {
  const log = await startTransparencyLog({ readStore, key, origin: ORIGIN, logger: createLogger('silent', 'index-proof') });
  const api = await startReadApiUnderTest({
    readStore, signingKeys: await testSigningKeys(), extraRoutes: [transparencyRoutes(log)], serialIndex: indexProofs(log),
  });
  return { log, api };
}

interface ProvedVerification {
  serial: string;
  verification_status: IndexStatus;
  proof?: { checkpoint: string; vrf_proof: string; index_proof: string };
}

describe('verify with proof=index: the status proved in the serial index at a signed checkpoint', function () {
  this.timeout(60_000);
  let dir: string;
  let events: EventStore;
  let log: TransparencyLog;
  let api: ReadApiUnderTest;
  const logKey = generateKeyPairSync('ed25519').privateKey;
  const logVerifier = verifierKey(ORIGIN, logKey);
  /** The position of the theft only the log has projected. */
  let theftAhead: number;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'watchcat-index-proof-api-'));
    events = openSqliteEventStore(join(dir, 'events.sqlite3'));
    for (const serial of ['IP-2024-0001', 'IP-2024-0002', 'IP-2024-0007']) await events.append(`serial-${serial}`, [serialRegistered(serial)], 'no_stream');
    await events.append('serial-IP-2024-0002', [serialReportedStolen('IP-2024-0002')], 0);
    const readStore = createMemoryReadStore();
    await rebuild({ eventStore: events, readStore, projections: [...PROJECTIONS] });
    // The theft, then the log alone projected again: it is ahead of the serials read model, as on another worker.
    theftAhead = (await events.append('serial-IP-2024-0007', [serialReportedStolen('IP-2024-0007')], 0)).position;
    await rebuild({ eventStore: events, readStore, projections: [logProjection] });
    ({ log, api } = await serve(readStore, logKey));
  });
  after(async () => {
    await api?.close();
    await log?.stop();
    await events?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Checks the answer's proofs under the line of its checkpoint, opened with the log's key; its checkpoint's size. */
  function expectProved(answer: ProvedVerification, status: IndexStatus): number {
    expect(answer.verification_status, answer.serial).to.equal(status);
    const { checkpoint, vrf_proof, index_proof } = answer.proof!;
    const body = parseCheckpoint(openNote(checkpoint, logVerifier));
    const committed = indexCommitmentOf(body);
    expect(committed, 'the checkpoint commits the index').to.not.equal(undefined);
    const proved = verifyIndexAnswer(committed!.vrfPublicKey, committed!.root, { serial: answer.serial, status: answer.verification_status, vrf_proof, index_proof });
    expect(proved, `${answer.serial}'s proofs under the checkpoint's index root`).to.equal(true);
    return body.size;
  }

  it('over HTTP: each status proved, the theft the read model has not applied included; the plain answer carries none', async function () {
    for (const [serial, { status, plain }] of Object.entries(SERIALS)) {
      const proved = await fetch(`${api.url}/api/public/verify/${serial.toLowerCase()}?proof=index`);
      expect(proved.status, serial).to.equal(200);
      expect(expectProved(await proved.json() as ProvedVerification, status), 'the checkpoint of every event').to.equal(5);
      // The theft the read model has not applied is stated at its own position, not the registry's before it.
      const position = Number(proved.headers.get('x-read-model-position'));
      if (status === plain) expect(position, `${serial}: the registry's position`).to.be.below(theftAhead);
      else expect(position, `${serial}: where the theft proved is so`).to.equal(theftAhead);
      const answer = await (await fetch(`${api.url}/api/public/verify/${serial}`)).json() as ProvedVerification;
      expect([answer.verification_status, answer.proof], `${serial}, plain`).to.deep.equal([plain, undefined]);
    }
    expect((await fetch(`${api.url}/api/public/verify/IP-2024-0001?proof=all`)).status, 'another proof kind').to.equal(422);
  });

  it('over MCP: verify_serial takes the same argument and answers the same proofs', async function () {
    const client = await connectedClient(api.url);
    try {
      for (const [serial, { status }] of Object.entries(SERIALS)) {
        const result = await client.callTool({ name: 'verify_serial', arguments: { serial, proof: 'index' } });
        expect(result.isError, serial).to.not.equal(true);
        expectProved(result.structuredContent as unknown as ProvedVerification, status);
      }
    } finally {
      await client.close();
    }
  });

  it('makes an offline file that watchcat receipt verify accepts with the log key alone', async function () {
    const answer = await (await fetch(`${api.url}/api/public/verify/IP-2024-0007?proof=index`)).json() as ProvedVerification;
    const { checkpoint, vrf_proof, index_proof } = answer.proof!;
    const file = join(dir, 'IP-2024-0007.proof');
    writeFileSync(file, indexProofFile({ serial: answer.serial, status: answer.verification_status, vrf_proof, index_proof }, checkpoint));
    const out: string[] = [];
    const notes: string[] = [];
    const context = createCliContext({ LOG_LEVEL: 'silent', DATA_DIR: dir }, { out: (line) => out.push(line), note: (line) => notes.push(line) });
    const code = await run(['node', 'watchcat', 'receipt', 'verify', file, '--log-key', logVerifier], context);
    expect([code, out[0], notes]).to.deep.equal([0, 'at checkpoint 5, cosigned by 0 witnesses, serial IP-2024-0007 was STOLEN', []]);
    expect(out.slice(1).join('\n'), 'no index policy: the only status at that size is not shown').to.match(/^unique: not shown: [^\n]*$/);
  });

  it('a signed answer saved with curl -si: receipt verify checks the proof it carries under the log\'s key, and --save-proof keeps it as the offline file', async function () {
    const signed = { 'Accept-Signature': 'sig1=("@status" "content-digest");alg="ed25519"' };
    const jwks = `${api.url}/.well-known/jwks.json`;
    const cliIn = async (env: Record<string, string>, ...args: string[]) => {
      const out: string[] = [];
      const notes: string[] = [];
      const code = await run(['node', 'watchcat', 'receipt', 'verify', ...args], createCliContext({ LOG_LEVEL: 'silent', DATA_DIR: dir, ...env }, { out: (line) => out.push(line), note: (line) => notes.push(line) }));
      return { code, out, notes };
    };
    const cli = (...args: string[]) => cliIn({}, ...args);
    const proved = 'at checkpoint 5, cosigned by 0 witnesses, serial IP-2024-0007 was STOLEN';
    const overHttp = join(dir, 'http-answer.txt');
    writeFileSync(overHttp, await curlSi(`${api.url}/api/public/verify/IP-2024-0007?proof=index`, signed));
    const kept = join(dir, 'kept-IP-2024-0007.proof');
    const checked = await cli(overHttp, '--jwks', jwks, '--log-key', logVerifier, '--save-proof', kept);
    expect(checked.code, checked.notes.join('\n')).to.equal(0);
    expect(checked.out[0]).to.match(/^receipt holds: signature sig1 verified/);
    expect(checked.out).to.include(proved).and.include(`proof: saved to ${kept}, checked by watchcat receipt verify ${kept} with the log's key alone`);
    const offline = await cli(kept, '--log-key', logVerifier);
    expect([offline.code, offline.out[0]], 'the saved file, with the log key alone').to.deep.equal([0, proved]);
    expect(await cli(kept, '--log-key', logVerifier, '--save-proof', join(dir, 'again.proof')), 'a proof file saved again').to.deep.include({
      code: 1, notes: ['watchcat: --save-proof applies to a saved answer that carries a serial index proof; this is the proof file already'],
    });
    // Without --log-key, the log's key is the deployment's (here the local server on PORT), for the answer and the file alone.
    const deployment = { PORT: new URL(api.url).port };
    const byDeployment = await cliIn(deployment, overHttp, '--jwks', jwks);
    expect(byDeployment.code, byDeployment.notes.join('\n')).to.equal(0);
    expect(byDeployment.out).to.include(proved);
    expect(await cliIn(deployment, kept)).to.deep.include({ code: 0, notes: [] }).and.have.nested.property('out[0]', proved);
    // A deployment that does not answer: the command says which key it could not read, and where.
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const unread = await cliIn({ PORT: String(closed) }, kept);
    expect(unread.code).to.equal(1);
    expect(unread.notes[0]).to.match(new RegExp(`^watchcat: cannot read the log key http://127\\.0\\.0\\.1:${closed}/\\.well-known/transparency/key: `));
    expect((await cli(overHttp, '--jwks', jwks, '--log-key', logVerifier, '--save-proof', kept)).notes[0], 'a kept file is not overwritten').to.match(/^watchcat: cannot save the proof to /);

    // The signature holds whatever log key is given: the proof is checked under it, and under another log's key it is not the log's.
    const otherLog = verifierKey(ORIGIN, generateKeyPairSync('ed25519').privateKey);
    const underOther = await cli(overHttp, '--jwks', jwks, '--log-key', otherLog);
    expect(underOther.code).to.equal(1);
    expect(underOther.notes[0]).to.match(/^watchcat: serial index proof does not hold: /);

    // Over MCP, the verification is the result's structured content.
    const overMcp = join(dir, 'mcp-answer.txt');
    writeFileSync(overMcp, await curlSi(`${api.url}/mcp`, { ...MCP_HEADERS, ...signed }, JSON.stringify(toolCall('verify_serial', { serial: 'IP-2024-0002', proof: 'index' }))));
    const mcp = await cli(overMcp, '--jwks', jwks, '--log-key', logVerifier);
    expect(mcp.code, mcp.notes.join('\n')).to.equal(0);
    expect(mcp.out).to.include('at checkpoint 5, cosigned by 0 witnesses, serial IP-2024-0002 was STOLEN');

    const plain = join(dir, 'plain-answer.txt');
    writeFileSync(plain, await curlSi(`${api.url}/api/public/verify/IP-2024-0007`, signed));
    expect(await cli(plain, '--jwks', jwks, '--save-proof', join(dir, 'none.proof'))).to.deep.include({
      code: 1, notes: ['watchcat: --save-proof applies to a serial index proof: this answer carries none (ask with proof=index)'],
    });
    const indexPolicy = join(dir, 'index.policy');
    writeFileSync(indexPolicy, `log ${logVerifier}\nquorum none\n`);
    expect(await cli(plain, '--jwks', jwks, '--index-policy', indexPolicy)).to.deep.include({
      code: 1, notes: ['watchcat: --index-policy applies to a serial index proof: this answer carries none (ask with proof=index)'],
    });
  });

  it('over a log projected in part before the index\'s changes: refuses the proof, saying in the request\'s language that the index is not built and why; the plain answer stands', async function () {
    const readStore = createMemoryReadStore();
    // The first serial projected into the log by the version before the index's changes, the rest by this one.
    const upgraded = logProjectionUpgradedAfter((await events.readAll({ after: 0, limit: 1 }))[0]!.position);
    await rebuild({ eventStore: events, readStore, projections: PROJECTIONS.map((projection) => (projection.name === upgraded.name ? upgraded : projection)) });
    const unbuilt = await serve(readStore, logKey);
    try {
      const url = unbuilt.api.url;
      const english = await fetch(`${url}/api/public/verify/IP-2024-0001?proof=index`);
      expect(english.status).to.equal(503);
      // Nothing changes until an operator's rebuild (docs/api.md, the verification's 503): not a retry in a second.
      expect(english.headers.get('retry-after')).to.equal('300');
      expect(((await english.json()) as { detail: string }).detail).to.equal(
        'The serial index is not built: the transparency log holds serial events without their index changes (projected in part before the index existed, or by a version that could not read them), and its signed checkpoints do not commit it until the log is rebuilt.');
      const french = await fetch(`${url}/api/public/verify/IP-2024-0001?proof=index&lang=fr`);
      expect(french.status).to.equal(503);
      expect(((await french.json()) as { detail: string }).detail).to.equal(
        'L\'index des numéros de série n\'est pas construit : le journal de transparence contient des événements de numéros de série sans leurs changements d\'index (projeté en partie avant que l\'index existe, ou par une version qui ne pouvait pas les lire), et ses points de contrôle signés ne l\'engagent pas tant que le journal n\'est pas reconstruit.');
      const plain = await fetch(`${url}/api/public/verify/IP-2024-0001`);
      expect([plain.status, ((await plain.json()) as ProvedVerification).verification_status]).to.deep.equal([200, 'AUTHENTIC']);
      // Its checkpoints sign the log alone: origin, size and root, no extension line committing an index.
      const note = unbuilt.log.checkpoint()!.note;
      expect(note.slice(0, note.indexOf('\n\n')).split('\n'), note).to.have.length(3);
    } finally {
      await unbuilt.api.close();
      await unbuilt.log.stop();
    }
  });

  it('with the index behind the registry (a theft and a registration the log has not projected): refuses the AUTHENTIC and the NOT_FOUND it would prove, in the request\'s language, until the log catches up', async function () {
    const behindDir = mkdtempSync(join(tmpdir(), 'watchcat-index-behind-'));
    const behindEvents = openSqliteEventStore(join(behindDir, 'events.sqlite3'));
    const readStore = createMemoryReadStore();
    let behind: { log: TransparencyLog; api: ReadApiUnderTest } | undefined;
    try {
      await behindEvents.append('serial-IB-2024-0001', [serialRegistered('IB-2024-0001')], 'no_stream');
      await behindEvents.append('serial-IB-2024-0003', [serialRegistered('IB-2024-0003')], 'no_stream');
      await rebuild({ eventStore: behindEvents, readStore, projections: [...PROJECTIONS] });
      // Applied by the serials read model alone: the log, and so the index its checkpoints commit, stands before them.
      await behindEvents.append('serial-IB-2024-0001', [serialReportedStolen('IB-2024-0001')], 0);
      await behindEvents.append('serial-IB-2024-0002', [serialRegistered('IB-2024-0002')], 'no_stream');
      await rebuild({ eventStore: behindEvents, readStore, projections: PROJECTIONS.filter((projection) => projection.name === 'serials') });
      behind = await serve(readStore, logKey);
      const url = behind.api.url;
      for (const [serial, plain] of [['IB-2024-0001', 'STOLEN'], ['IB-2024-0002', 'AUTHENTIC']]) {
        const refused = await fetch(`${url}/api/public/verify/${serial}?proof=index`);
        expect([refused.status, refused.headers.get('retry-after'), ((await refused.json()) as { detail: string }).detail], serial).to.deep.equal([
          503, '1', 'The signed proof of this serial\'s latest status is not ready yet; try again shortly.',
        ]);
        const answer = await (await fetch(`${url}/api/public/verify/${serial}`)).json() as ProvedVerification;
        expect(answer.verification_status, `${serial}, plain`).to.equal(plain);
      }
      const french = await fetch(`${url}/api/public/verify/IB-2024-0001?proof=index&lang=fr`);
      expect([french.status, ((await french.json()) as { detail: string }).detail]).to.deep.equal([
        503, 'La preuve signée du dernier statut de ce numéro de série n\'est pas encore prête ; réessayez dans un instant.',
      ]);
      const client = await connectedClient(url);
      try {
        const result = await client.callTool({ name: 'verify_serial', arguments: { serial: 'IB-2024-0001', proof: 'index' } });
        expect(result.isError, 'over MCP').to.equal(true);
      } finally {
        await client.close();
      }
      // The log projected: the index proves the registry's statuses.
      await rebuild({ eventStore: behindEvents, readStore, projections: [logProjection] });
      await behind.log.look();
      const caughtUp = await (await fetch(`${url}/api/public/verify/IB-2024-0001?proof=index`)).json() as ProvedVerification;
      expectProved(caughtUp, 'STOLEN');
      expectProved(await (await fetch(`${url}/api/public/verify/IB-2024-0002?proof=index`)).json() as ProvedVerification, 'AUTHENTIC');
      // A proof is never given again from a cache: the log moves on (a catalogue event) while the serials stand still.
      const proofOf = async () => expectProved(await (await fetch(`${url}/api/public/verify/IB-2024-0003?proof=index`)).json() as ProvedVerification, 'AUTHENTIC');
      const before = await proofOf();
      await behindEvents.append('collection-ib', [collectionDefined('ib')], 'no_stream');
      await rebuild({ eventStore: behindEvents, readStore, projections: [logProjection] });
      await behind.log.look();
      expect(await proofOf(), 'the same URL asked again, at the next checkpoint').to.equal(before + 1);
    } finally {
      await behind?.api.close();
      await behind?.log.stop();
      await behindEvents.close();
      rmSync(behindDir, { recursive: true, force: true });
    }
  });
});
