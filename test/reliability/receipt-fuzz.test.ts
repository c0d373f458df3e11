/**
 * `watchcat receipt verify` under a seeded mutation fuzz (test/support/receipt-fuzz.ts): no file that verifies says
 * anything other than what the service signed or proved (docs/api.md, "Signed answers"; docs/audit.md, "Serial index
 * proofs"). The read API, its transparency log and three witnesses' cosignatures of its checkpoint give valid files of
 * each kind for an AUTHENTIC, a STOLEN and a NOT_FOUND serial at one checkpoint: the signed answer asked with
 * `proof=index` saved with `curl -si` over HTTP and over MCP, and the offline proof file `--save-proof` writes. The
 * service is then stopped: everything after is checked offline, with the key set, the log's key and the witness and
 * index policies (two of four witnesses, the fourth cosigning only another checkpoint whose lines mutants may take;
 * two of the three) as files, by the command itself run in this process. Each mutant must be refused with one line
 * naming a problem, or verify saying what its original says (its signature's label aside, which RFC 9421 does not
 * sign; a proof file's cosignatures may be fewer, as anyone may drop a signature line of a note).
 *
 * Then two answers for one serial at one checkpoint: the opposite status with the proof parts reused, in a proof file
 * and in an answer signed again with the service's own key (its signature holds), must be refused.
 *
 * The seed is printed; `FUZZ_SEED=<n>` replays its choices, `FUZZ_MUTANTS=<n>` makes that many mutants. A failing
 * run keeps its files and mutants in the directory it names, with the command to run on them.
 */
import { createPrivateKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { indexProofs, startTransparencyLog } from '../../read-api/transparency/log-publisher.ts';
import { transparencyRoutes } from '../../read-api/transparency/transparency-routes.ts';
import { createCliContext } from '../../services/cli/cli-context.ts';
import { run } from '../../services/cli/program.ts';
import { createMemoryReadStore } from '../../shared/adapters/memory-read-store.ts';
import { openSqliteEventStore } from '../../shared/adapters/sqlite-event-store.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { seededRandom } from '../../shared/random/seeded-random.ts';
import { PROJECTIONS } from '../../shared/read-model/projections/index.ts';
import { rebuild } from '../../shared/read-model/projections/rebuild.ts';
import { checkpointBody } from '../../shared/read-model/transparency/checkpoint.ts';
import { cosign, cosignerKey, withCosignatures } from '../../shared/read-model/transparency/cosignature.ts';
import { indexExtension } from '../../shared/read-model/transparency/serial-index.ts';
import { noteText, signNote, verifierKey } from '../../shared/read-model/transparency/signed-note.ts';
import { signedCheckpointOf } from '../../shared/read-model/transparency/signed-checkpoints.ts';
import { serialRegistered, serialReportedStolen } from '../fixtures/events.ts';
import { curlSi } from '../support/curl-si.ts';
import { MCP_HEADERS, toolCall } from '../support/mcp-client.ts';
import { startReadApiUnderTest } from '../support/read-api-under-test.ts';
import { mutantProblem, mutate, type FuzzFile, type ReceiptKind, type Verdict } from '../support/receipt-fuzz.ts';
import { contentDigest, readSignatureInput, signatureBase, signBase } from '../support/rfc9421-by-hand.ts';
import { newSigningKeyPem, testSigningKeys } from '../support/signing-keys.ts';

const SEED = Number(process.env['FUZZ_SEED'] ?? 46_003);
// Bounded for npm test's time budget: about 10 s of mutants on this machine.
const MUTANTS = Number(process.env['FUZZ_MUTANTS'] ?? 1_800);
const ORIGIN = 'watch.example/watchcat/events';
/** The registry's statuses (docs/api.md, "GET /api/public/verify/{serial}"): registered, reported stolen, never registered. */
const SERIALS = [['RF-2024-0001', 'AUTHENTIC'], ['RF-2024-0002', 'STOLEN'], ['RF-2024-0404', 'NOT_FOUND']] as const;
/** The quorum of both policies: a proof file stripped of one of its three cosignatures still holds. */
const LEAST_WITNESSES = 2;

describe('receipt verify under a seeded mutation fuzz: a file that verifies says what the service signed or proved', function () {
  this.timeout(120_000);
  const dir = mkdtempSync(join(tmpdir(), 'watchcat-receipt-fuzz-'));
  const logKey = generateKeyPairSync('ed25519').privateKey;
  const logVerifier = verifierKey(ORIGIN, logKey);
  // W1 to W3 cosign the checkpoint; W4, in the witness policy, cosigned only another checkpoint (`elsewhere`).
  const witnesses: [string, KeyObject][] = [1, 2, 3, 4].map((n) => [`witness.example/w${n}`, generateKeyPairSync('ed25519').privateKey]);
  const signingPem = newSigningKeyPem();
  const files: FuzzFile[] = [];
  /** A proof file at another checkpoint, which all four witnesses cosigned: its lines are given to mutants, never checked. */
  let elsewhere: FuzzFile;
  const originals = new Map<FuzzFile, Verdict>();
  let failed = false;

  const write = (name: string, bytes: Buffer | string) => {
    const file = join(dir, name);
    writeFileSync(file, bytes);
    return file;
  };
  const policyOf = (name: string, members: typeof witnesses) => write(name, [`log ${logVerifier}`,
    ...members.map(([witness, key]) => `witness W${witness.slice(-1)} ${cosignerKey(witness, key)}`),
    `group two 2 ${members.map(([witness]) => `W${witness.slice(-1)}`).join(' ')}`, 'quorum two', ''].join('\n'));
  const policy = policyOf('witnesses.policy', witnesses);
  // No two disjoint sets of its witnesses meet it, as an index policy must (services/audit/receipt/index-proof.ts).
  const indexPolicy = policyOf('index.policy', witnesses.slice(0, 3));
  const jwks = join(dir, 'jwks.json');
  /** The command as a buyer runs it on a file of this kind: offline, every key given as a file or a value. */
  const argsOf = (kind: ReceiptKind, file: string) => (kind === 'proof'
    ? ['receipt', 'verify', file, '--log-key', logVerifier, '--policy', policy, '--index-policy', indexPolicy]
    : ['receipt', 'verify', file, '--jwks', jwks, '--log-key', logVerifier, '--index-policy', indexPolicy]);
  async function verify(kind: ReceiptKind, file: string): Promise<Verdict> {
    const out: string[] = [];
    const notes: string[] = [];
    const context = createCliContext({ LOG_LEVEL: 'silent', DATA_DIR: dir }, { out: (line) => out.push(line), note: (line) => notes.push(line) });
    const code = await run(['node', 'watchcat', ...argsOf(kind, file)], context);
    return { code, out, notes };
  }

  before(async function () {
    const events = openSqliteEventStore(join(dir, 'events.sqlite3'));
    const readStore = createMemoryReadStore();
    const log = await startTransparencyLog({ readStore, key: logKey, origin: ORIGIN, logger: createLogger('silent', 'receipt-fuzz') });
    let api;
    try {
      for (const [serial, status] of SERIALS) if (status !== 'NOT_FOUND') await events.append(`serial-${serial}`, [serialRegistered(serial)], 'no_stream');
      await events.append('serial-RF-2024-0002', [serialReportedStolen('RF-2024-0002')], 0);
      await rebuild({ eventStore: events, readStore, projections: [...PROJECTIONS] });
      await log.look();
      // The witnesses' cosignatures added to the stored note, as read-api/transparency/witness-cosigning.ts adds them.
      const stored = signedCheckpointOf(await readStore.readControl())!;
      const note = withCosignatures(stored.note, witnesses.slice(0, 3).map(([name, key]) => cosign(noteText(stored.note), name, key, 1_700_000_000)));
      expect(await readStore.setControl({ ...stored, note }, { size: stored.size, root: stored.root, note: stored.note }, false)).to.equal(true);
      await log.look();
      api = await startReadApiUnderTest({ readStore, signingKeys: await testSigningKeys(signingPem), extraRoutes: [transparencyRoutes(log)], serialIndex: indexProofs(log) });
      write('jwks.json', Buffer.from(await (await fetch(`${api.url}/.well-known/jwks.json`)).arrayBuffer()));
      const signed = { 'Accept-Signature': 'sig1=("@status" "content-digest");alg="ed25519"' };
      for (const [serial] of SERIALS) {
        files.push({ name: `${serial}.http.txt`, kind: 'http', bytes: await curlSi(`${api.url}/api/public/verify/${serial}?proof=index`, signed) });
        const call = JSON.stringify(toolCall('verify_serial', { serial, proof: 'index' }));
        files.push({ name: `${serial}.mcp.txt`, kind: 'mcp', bytes: await curlSi(`${api.url}/mcp`, { ...MCP_HEADERS, ...signed }, call) });
      }
    } finally {
      await api?.close();
      await log.stop();
      await events.close();
    }
    for (const [serial] of SERIALS) {
      const saved = await run(['node', 'watchcat', ...argsOf('http', write(`${serial}.http.txt`, files.find((file) => file.name === `${serial}.http.txt`)!.bytes)),
        '--save-proof', join(dir, `${serial}.proof`)], createCliContext({ LOG_LEVEL: 'silent', DATA_DIR: dir }, { out: () => {}, note: () => {} }));
      expect(saved, `${serial}: the proof saved`).to.equal(0);
      files.push({ name: `${serial}.proof`, kind: 'proof', bytes: readFileSync(join(dir, `${serial}.proof`)) });
    }
    for (const file of files) originals.set(file, await verify(file.kind, write(file.name, file.bytes)));
    const body = checkpointBody({ origin: ORIGIN, size: 4, root: randomBytes(32), extensions: [indexExtension({ root: randomBytes(32), vrfPublicKey: randomBytes(32) })] });
    const note = `${signNote(body, ORIGIN, logKey)}${witnesses.map(([name, key]) => cosign(body, name, key, 1_700_000_000)).join('')}`;
    const proof = files.find((file) => file.kind === 'proof')!.bytes.toString('utf8');
    elsewhere = { name: 'elsewhere.proof', kind: 'proof', bytes: Buffer.from(`${proof.slice(0, proof.indexOf('\n\n') + 2)}${note}`, 'utf8') };
  });
  afterEach(function () {
    failed ||= this.currentTest?.state === 'failed';
  });
  after(() => {
    if (failed) console.log(`      the files and mutants are kept in ${dir}; a mutant is checked by: npx watchcat ${argsOf('proof', '<file>').join(' ')}, or for an answer: npx watchcat ${argsOf('http', '<file>').join(' ')}`);
    else rmSync(dir, { recursive: true, force: true });
  });

  it('each valid file verifies and says its serial\'s status at the checkpoint of 3 events, cosigned', async function () {
    expect(files.map((file) => file.kind)).to.have.members(['http', 'mcp', 'http', 'mcp', 'http', 'mcp', 'proof', 'proof', 'proof']);
    for (const file of files) {
      const verdict = originals.get(file)!;
      expect([verdict.code, verdict.notes], file.name).to.deep.equal([0, []]);
      const [serial, status] = SERIALS.find(([serial]) => file.name.startsWith(serial))!;
      const witnessed = file.kind === 'proof' ? '3 witnesses (W1, W2, W3)' : '0 witnesses';
      expect(verdict.out, file.name).to.include(`at checkpoint 3, cosigned by ${witnessed}, serial ${serial} was ${status}`);
      expect(verdict.out.at(-1), file.name).to.match(/^unique: no other status of \S+ at checkpoint 3 can meet the index policy's quorum \(two, cosigned here by W1, W2, W3\)/);
      if (file.kind === 'mcp') expect(verdict.out, file.name).to.include(`call: verify_serial {"serial":"${serial}","lang":"en","proof":"index"} (signed, in the body: the request line above does not name it)`);
    }
  });

  it(`refuses every mutant or says what its original says (${MUTANTS} mutants)`, async function () {
    console.log(`      seed ${SEED} (FUZZ_SEED=${SEED} replays its choices)`);
    const random = seededRandom(SEED);
    const findings: string[] = [];
    const tally: Record<string, { mutants: number; refused: number; verified: number; unchanged: number }> = {};
    for (let i = 0; i < MUTANTS; i += 1) {
      const file = files[i % files.length]!;
      const counts = (tally[file.kind] ??= { mutants: 0, refused: 0, verified: 0, unchanged: 0 });
      counts.mutants += 1;
      const { text, how } = mutate(random, file, [...files, elsewhere]);
      const original = file.bytes.toString('latin1');
      if (text === original) {
        counts.unchanged += 1;
        continue;
      }
      const path = write(`mutant.${file.kind}`, Buffer.from(text, 'latin1'));
      const started = performance.now();
      const verdict = await verify(file.kind, path);
      const problem = performance.now() - started > 5_000 ? 'took over 5 s'
        : mutantProblem(file.kind, { text: original, verdict: originals.get(file)! }, { text, verdict }, LEAST_WITNESSES);
      counts[verdict.code === 0 ? 'verified' : 'refused'] += 1;
      if (problem) findings.push(`mutant ${i} of ${file.name} (${how}), kept as ${write(`finding-${i}-${file.name}`, Buffer.from(text, 'latin1'))}: ${problem}`);
    }
    console.log(`      ${JSON.stringify(tally)}`);
    expect(findings.length, `seed ${SEED}: ${findings.length} mutants broke the guarantee, the first:\n${findings.slice(0, 5).join('\n')}\n`).to.equal(0);
    // The fuzz reached both ends of every kind: edits refused, and edits that change nothing signed (a label, a fold, a line end).
    for (const kind of ['http', 'mcp', 'proof']) {
      expect(tally[kind]?.refused, `${kind} mutants refused`).to.be.above(0);
      expect(tally[kind]?.verified, `${kind} mutants that verify`).to.be.above(0);
    }
  });

  it('refuses a second answer for a serial at the checkpoint: the opposite status with the proof parts reused, in a proof file and in an answer signed again with the service\'s key', async function () {
    const signingKey = createPrivateKey(signingPem);
    const statusOf = (serial: string) => SERIALS.find(([known]) => known === serial)![1];
    for (const file of files) {
      const [serial, status] = SERIALS.find(([known]) => file.name.startsWith(known))!;
      const donors = files.filter((donor) => donor.kind === file.kind && !donor.name.startsWith(serial));
      // Every other status, with this serial's proofs as they are, then with the proofs of the serial that has it.
      const others: { status: string; proofFrom?: FuzzFile }[] = [
        ...SERIALS.filter(([, other]) => other !== status).map(([, other]) => ({ status: other })),
        ...donors.map((donor) => ({ status: statusOf(donor.name.slice(0, 12)), proofFrom: donor })),
      ];
      for (const { status: other, proofFrom } of others) {
        const what = `${file.name} said ${other}${proofFrom ? ` with the proofs of ${proofFrom.name}` : ''}`;
        const text = file.kind === 'proof' ? proofFileSaying(file, other, proofFrom) : answerSaying(file, other, proofFrom, signingKey);
        const verdict = await verify(file.kind, write(`second-${file.name}`, Buffer.from(text, 'latin1')));
        expect([verdict.code, verdict.notes], what).to.deep.equal([1, [
          `watchcat: serial index proof does not hold: the proofs do not show serial ${serial} ${other} in the serial index the checkpoint of 3 leaves commits`,
        ]]);
        // Signed again, the answer's signature holds: the proof alone refuses it.
        if (file.kind !== 'proof') expect(verdict.out[0], what).to.equal('receipt holds: signature sig1 verified');
      }
    }
  });
});

/** A proof file's lines `status`, and `vrf` and `index` from `proofFrom` when given. */
function proofFileSaying(file: FuzzFile, status: string, proofFrom: FuzzFile | undefined): string {
  const lineOf = (text: string, field: string) => text.split('\n').find((line) => line.startsWith(`${field} `))!;
  let text = file.bytes.toString('latin1').replace(/^status .*$/m, `status ${status}`);
  for (const field of ['vrf', 'index']) if (proofFrom) text = text.replace(lineOf(text, field), lineOf(proofFrom.bytes.toString('latin1'), field));
  return text;
}

/**
 * A saved answer whose verification (the body over HTTP; over MCP the result's structured content and its text) says
 * `status`, with the proofs of `proofFrom` when given, its Content-Digest made again and its signature made again
 * with `key` over the same components and parameters (test/support/rfc9421-by-hand.ts): an answer the signer made.
 */
function answerSaying(file: FuzzFile, status: string, proofFrom: FuzzFile | undefined, key: KeyObject): string {
  const text = file.bytes.toString('latin1');
  const split = text.indexOf('\r\n\r\n');
  const lines = text.slice(0, split).split('\r\n');
  const body = JSON.parse(Buffer.from(text.slice(split + 4), 'latin1').toString('utf8')) as Record<string, Record<string, unknown>>;
  const verificationOf = (json: Record<string, Record<string, unknown>>) => (json['result']?.['structuredContent'] ?? json) as Record<string, unknown>;
  const verification = verificationOf(body);
  verification['verification_status'] = status;
  verification['stolen'] = status === 'STOLEN';
  if (proofFrom) {
    const donor = verificationOf(JSON.parse(Buffer.from(proofFrom.bytes.toString('latin1').split('\r\n\r\n')[1]!, 'latin1').toString('utf8')) as Record<string, Record<string, unknown>>);
    verification['proof'] = { ...(verification['proof'] as object), ...(donor['proof'] as object), checkpoint: (verification['proof'] as Record<string, string>)['checkpoint'] };
  }
  if (body['result']) body['result']['content'] = [{ type: 'text', text: JSON.stringify(verification) }];
  const content = Buffer.from(JSON.stringify(body), 'utf8').toString('latin1');
  const field = (name: string) => lines.find((line) => line.toLowerCase().startsWith(`${name}:`))!.slice(name.length + 1).trim();
  const digest = contentDigest(Buffer.from(content, 'latin1'));
  const { label, identifiers, params } = readSignatureInput(field('signature-input'));
  const [, method, authority, path, query] = /^(\S+) \/\/([^/]+)(\/[^?]*)(?:\?(.*))?$/.exec(field('signed-request'))!;
  const values: Record<string, string> = { '"@status"': '200', '"@method";req': method!, '"@authority";req': authority!, '"@path";req': path!, '"@query";req': `?${query ?? ''}` };
  for (const identifier of identifiers) values[identifier] ??= identifier === '"content-digest"' ? digest : field(JSON.parse(identifier) as string);
  const signature = signBase(signatureBase(identifiers, values, params), key).toString('base64');
  const head = lines.map((line) => (/^content-digest:/i.test(line) ? `Content-Digest: ${digest}` : /^signature:/i.test(line) ? `Signature: ${label}=:${signature}:` : line));
  return `${head.join('\r\n')}\r\n\r\n${content}`;
}
