/**
 * `watchcat receipt verify` (services/cli/receipt.commands.ts) on answers saved from a running read API with
 * curl -si, as the README shows, and on an answer signed by the independent implementation of
 * test/support/rfc9421-by-hand.ts.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import { createCliContext, type CliContext } from '../../services/cli/cli-context.ts';
import { run } from '../../services/cli/program.ts';
import { parseSavedResponse } from '../../services/audit/receipt/saved-response.ts';
import { verifyReceipt } from '../../services/audit/receipt/verify-receipt.ts';
import type { JwkSet } from '../../shared/signing/jwk-set.ts';
import { startReadApiUnderTest, type ReadApiUnderTest } from '../support/read-api-under-test.ts';
import { contentDigest, signatureBase, signBase, thumbprintByHand } from '../support/rfc9421-by-hand.ts';
import { historyEntry, newSigningKeyPem, testSigningKeys } from '../support/signing-keys.ts';

const execFileAsync = promisify(execFile);
const ASK = 'sig1=("@status" "content-digest");alg="ed25519"';
const VERIFY_PATH = '/api/public/verify/AUR-0001';

/** What `curl -si` saves, exactly as the README has the buyer do it. */
async function curlSi(url: string): Promise<Buffer> {
  const { stdout } = await execFileAsync('curl', ['-si', '-H', `Accept-Signature: ${ASK}`, url], { encoding: 'buffer' });
  return stdout;
}

/** Runs the CLI in this process, keeping what it prints. */
async function watchcat(...args: string[]): Promise<{ code: number; out: string[]; notes: string[] }> {
  const out: string[] = [];
  const notes: string[] = [];
  const context: CliContext = createCliContext({ LOG_LEVEL: 'silent' }, { out: (line) => out.push(line), note: (line) => notes.push(line) });
  const code = await run(['node', 'watchcat', ...args], context);
  return { code, out, notes };
}

/** The receipt's bytes from its latin1 text (HTTP field bytes; the UTF-8 body kept byte for byte). */
const problemsOf = async (text: string, jwks: JwkSet) => (await verifyReceipt(parseSavedResponse(Buffer.from(text, 'latin1')), jwks)).problems;

describe('watchcat receipt verify', function () {
  // The README case starts the CLI as its own Node process, which compiles TypeScript on the fly.
  this.timeout(60_000);
  let dir: string;
  let api: ReadApiUnderTest | undefined;
  beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'receipt-')); });
  afterEach(async () => {
    await api?.close();
    api = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  it('README: a verification saved with curl -si passes against /.well-known/jwks.json, and fails with one byte changed', async () => {
    api = await startReadApiUnderTest();
    const receipt = join(dir, 'receipt.txt');
    const saved = await curlSi(`${api.url}${VERIFY_PATH}`);
    await writeFile(receipt, saved);
    const jwksUrl = `${api.url}/.well-known/jwks.json`;
    const cli = (file: string) => execFileAsync(process.execPath, ['bin/watchcat.js', 'receipt', 'verify', file, '--jwks', jwksUrl], {
      env: { PATH: process.env.PATH, LOG_LEVEL: 'silent' },
    }).then(({ stdout }) => ({ code: 0, stdout, stderr: '' }), (error: { code: number; stdout: string; stderr: string }) => error);
    const holds = await cli(receipt);
    expect(holds.code, holds.stderr).to.equal(0);
    const { keys } = (await (await fetch(jwksUrl)).json()) as JwkSet;
    expect(holds.stdout).to.include('signature sig1 verified').and.include(`200 to GET //${new URL(api.url).host}${VERIFY_PATH}`)
      .and.include(`by key: ${thumbprintByHand(keys[0]!.x)} (current key)`);
    const created = Number(/;created=(\d+)/.exec(saved.toString('latin1'))?.[1]);
    expect(holds.stdout).to.include(`at: ${new Date(created * 1000).toISOString()}`);
    const servedBytes = Buffer.from(await (await fetch(jwksUrl)).arrayBuffer());
    expect(holds.stdout).to.include(`key set: ${jwksUrl} (sha-256 ${createHash('sha256').update(servedBytes).digest('hex')})`);

    const changed = Buffer.from(saved);
    const at = changed.indexOf('AUTHENTIC');
    changed[at] = 'B'.charCodeAt(0);
    await writeFile(receipt, changed);
    const fails = await cli(receipt);
    expect(fails.code).to.equal(1);
    const bodyBytes = saved.length - saved.indexOf('\r\n\r\n') - 4;
    expect(fails.stderr).to.equal(`watchcat: receipt does not hold: the body does not match its Content-Digest (sha-256 of the ${bodyBytes} bytes saved differs)\n`);
  });

  it('names what was changed: the body, the status, a covered header, the echoed request; an uncovered header, LF line ends or an interim 1xx change nothing', async () => {
    api = await startReadApiUnderTest();
    const saved = (await curlSi(`${api.url}${VERIFY_PATH}?lang=fr`)).toString('latin1');
    const jwks = (await (await fetch(`${api.url}/.well-known/jwks.json`)).json()) as JwkSet;
    const mismatch = /^the signature does not match: the status or a covered field \("@status" "content-type" "content-digest" "etag" "x-read-model-position" "x-data-age" "@method";req "@authority";req "@path";req "@query";req\) differs from what was signed$/;
    const authority = new URL(api.url).host;
    expect(await problemsOf(saved, jwks)).to.deep.equal([]);
    expect(await problemsOf(saved.replace('"stolen":false', '"stolen":true '), jwks)).to.deep.equal([
      `the body does not match its Content-Digest (sha-256 of the ${saved.length - saved.indexOf('\r\n\r\n') - 4} bytes saved differs)`,
    ]);
    const forged = [
      saved.replace('HTTP/1.1 200 OK', 'HTTP/1.1 203 OK'),
      // Field names matched in any case, as HTTP reads them (the service writes its own in lower case).
      saved.replace(/(Content-Type: )application\/json; charset=utf-8/i, '$1text/plain; charset=utf-8'),
      // Another first character of the tag (a base64url hash starts with `x` once in 64 answers).
      saved.replace(/(ETag: ")(.)/i, (_, name: string, first: string) => `${name}${first === 'x' ? 'y' : 'x'}`),
      // The position its data was read at (issue 40): a receipt cannot claim newer data than it was read from.
      saved.replace(/(X-Read-Model-Position: )(\d+)/i, (_, name: string, value: string) => `${name}${Number(value) + 1}`),
      saved.replace(`Signed-Request: GET //${authority}${VERIFY_PATH}?lang=fr`, `Signed-Request: GET //${authority}/api/public/verify/AUR-0002?lang=fr`),
      saved.replace(`Signed-Request: GET //${authority}`, 'Signed-Request: GET //watchcat.example'),
    ];
    for (const text of forged) {
      expect(text).not.to.equal(saved);
      const problems = await problemsOf(text, jwks);
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(mismatch);
    }
    const withoutTag = saved.replace(/ETag: .*\r\n/i, '');
    expect(withoutTag).not.to.equal(saved);
    expect(await problemsOf(withoutTag, jwks)).to.deep.equal(['the covered header etag is missing from the answer']);
    const otherFigure = saved.replace(/(X-RateLimit-Remaining: )\d+/i, (_, name: string) => `${name}7`);
    expect(otherFigure).not.to.equal(saved);
    expect(await problemsOf(otherFigure, jwks)).to.deep.equal([]);
    // The same receipt with bare LF line ends, as some editors save it, and after an interim answer curl printed.
    expect(await problemsOf(saved.replace(/\r\n/g, '\n'), jwks)).to.deep.equal([]);
    expect(await problemsOf(`HTTP/1.1 100 Continue\r\n\r\n${saved}`, jwks)).to.deep.equal([]);
    // Folded header lines (RFC 9112 section 5.2, obs-fold) read as one line, and a header named after an Object member is a header.
    expect(await problemsOf(saved.replace(/("@status") ("content-type")/, '$1\r\n  $2'), jwks)).to.deep.equal([]);
    expect(await problemsOf(saved.replace('\r\n\r\n', '\r\nConstructor: x\r\n__proto__: y\r\n\r\n'), jwks)).to.deep.equal([]);
  });

  it('key history: an old answer verifies with its key retired and listed (a few minutes of rotation tolerated); refused once the key is gone, retired long before, not yet begun or marked compromised', async () => {
    const oldPem = newSigningKeyPem();
    api = await startReadApiUnderTest({ signingKeys: await testSigningKeys(oldPem) });
    const oldAnswer = await curlSi(`${api.url}${VERIFY_PATH}`);
    const oldKey = (await testSigningKeys(oldPem)).jwks.keys[0]!;
    await api.close();
    const created = Number(/;created=(\d+)/.exec(oldAnswer.toString('latin1'))?.[1]);
    const newPem = newSigningKeyPem();
    const history = (old: object) => JSON.stringify({ keys: [historyEntry(oldPem, { nbf: created - 3600, ...old }), historyEntry(newPem, { nbf: created })] });
    // Retired a minute before this answer's created: a replica still on the old key during the rotation.
    api = await startReadApiUnderTest({ signingKeys: await testSigningKeys(newPem, history({ exp: created - 60 })) });
    const jwksUrl = `${api.url}/.well-known/jwks.json`;

    const receipt = join(dir, 'old.txt');
    await writeFile(receipt, oldAnswer);
    const holds = await watchcat('receipt', 'verify', receipt, '--jwks', jwksUrl);
    expect(holds.code, holds.notes.join('\n')).to.equal(0);
    expect(holds.out).to.include(`by key: ${oldKey.kid} (retired key, retired at ${new Date((created - 60) * 1000).toISOString()})`);
    await writeFile(join(dir, 'new.txt'), await curlSi(`${api.url}${VERIFY_PATH}`));
    expect((await watchcat('receipt', 'verify', join(dir, 'new.txt'), '--jwks', jwksUrl)).code).to.equal(0);

    const refusedWith = async (keys: object[]) => {
      const file = join(dir, 'keys.json');
      await writeFile(file, JSON.stringify({ keys }));
      const result = await watchcat('receipt', 'verify', receipt, '--jwks', file);
      expect(result.code).to.equal(1);
      return result.notes;
    };
    const at = (seconds: number) => new Date(seconds * 1000).toISOString();
    expect(await refusedWith([historyEntry(newPem, { nbf: created })])).to.deep.equal([`watchcat: receipt does not hold: unknown key ${oldKey.kid}: it is not in the key set`]);
    expect(await refusedWith([historyEntry(oldPem, { nbf: created - 7200, exp: created - 3600 })])).to.deep.equal([
      `watchcat: receipt does not hold: expired key ${oldKey.kid}: retired at ${at(created - 3600)}, yet the answer says it was signed at ${at(created)}`,
    ]);
    expect(await refusedWith([historyEntry(oldPem, { nbf: created + 3600 })])).to.deep.equal([
      `watchcat: receipt does not hold: key ${oldKey.kid} began signing at ${at(created + 3600)}, yet the answer says it was signed at ${at(created)}`,
    ]);
    // A leaked key can sign with any created: once marked, everything it signed is void, even before the leak.
    expect(await refusedWith([historyEntry(oldPem, { nbf: created - 3600, revoked: { revoked_at: created + 86_400, reason: 'compromised' } })])).to.deep.equal([
      `watchcat: receipt does not hold: key ${oldKey.kid} is marked compromised (since ${at(created + 86_400)}): every answer it signed is void`,
    ]);
    // Listed twice, once marked compromised: which entry holds the set does not say, so neither is taken.
    expect(await refusedWith([
      historyEntry(oldPem, { nbf: created - 3600 }),
      historyEntry(oldPem, { nbf: created - 3600, revoked: { revoked_at: created + 86_400, reason: 'compromised' } }),
    ])).to.deep.equal([`watchcat: receipt does not hold: the key set lists key ${oldKey.kid} 2 times`]);
  });

  it('refuses a signature covering less than the contract lists, however valid, and a key set over plain HTTP from another host unless told to', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const x = String(publicKey.export({ format: 'jwk' }).x);
    const body = '{"serial":"AUR-0001","verification_status":"AUTHENTIC"}';
    const jwksFile = join(dir, 'jwks.json');
    await writeFile(jwksFile, JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', x }] }));
    const values: Record<string, string> = {
      '"@status"': '200', '"content-type"': 'application/json', '"content-digest"': contentDigest(body),
      '"@method";req': 'GET', '"@path";req': VERIFY_PATH, '"@query";req': '?', '"@authority";req': 'watchcat.example',
    };
    const receiptCovering = async (identifiers: string[]) => {
      const params = `(${identifiers.join(' ')});created=${Math.floor(Date.now() / 1000) - 5};keyid="${thumbprintByHand(x)}";alg="ed25519"`;
      const signature = signBase(signatureBase(identifiers, values, params), privateKey).toString('base64');
      const file = join(dir, 'partial.txt');
      await writeFile(file, [
        'HTTP/1.1 200 OK', 'Content-Type: application/json', `Content-Digest: ${contentDigest(body)}`, `Signed-Request: GET //watchcat.example${VERIFY_PATH}`,
        `Signature-Input: sig1=${params}`, `Signature: sig1=:${signature}:`, '', body,
      ].join('\r\n'));
      return watchcat('receipt', 'verify', file, '--jwks', jwksFile);
    };
    const all = Object.keys(values);
    expect((await receiptCovering(all)).code).to.equal(0);
    for (const left of all) {
      const partial = await receiptCovering(all.filter((identifier) => identifier !== left));
      expect(partial.code, left).to.equal(1);
      expect(partial.notes, left).to.deep.equal([`watchcat: receipt does not hold: the signature does not cover ${left}, which a receipt must`]);
    }

    const receipt = join(dir, 'partial.txt');
    const remote = await watchcat('receipt', 'verify', receipt, '--jwks', 'http://watchcat.invalid/.well-known/jwks.json');
    expect(remote).to.deep.include({
      code: 1,
      notes: ['watchcat: refusing the key set http://watchcat.invalid/.well-known/jwks.json: plain HTTP from a host other than loopback can be altered on the way; use https, a file, or --allow-plain-http'],
    });
    // Told to, it does fetch (and this host does not exist).
    const allowed = await watchcat('receipt', 'verify', receipt, '--jwks', 'http://watchcat.invalid/.well-known/jwks.json', '--allow-plain-http');
    expect(allowed.code).to.equal(1);
    expect(allowed.notes[0]).to.match(/^watchcat: cannot read the key set http:\/\/watchcat\.invalid\/\.well-known\/jwks\.json: /);
  });

  it('verifies an answer signed by an independent RFC 9421 implementation, and says so when the answer is not signed', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const x = String(publicKey.export({ format: 'jwk' }).x);
    const body = '{"serial":"AUR-0001","verification_status":"AUTHENTIC"}';
    const created = Math.floor(Date.now() / 1000) - 5;
    const params = `("@status" "content-type" "content-digest" "@method";req "@path";req "@query";req "@authority";req);created=${created};keyid="${thumbprintByHand(x)}";alg="ed25519"`;
    const base = signatureBase(
      ['"@status"', '"content-type"', '"content-digest"', '"@method";req', '"@path";req', '"@query";req', '"@authority";req'],
      {
        '"@status"': '200', '"content-type"': 'application/json', '"content-digest"': contentDigest(body),
        '"@method";req': 'GET', '"@path";req': VERIFY_PATH, '"@query";req': '?lang=en', '"@authority";req': 'watchcat.example:8443',
      },
      params,
    );
    const signature = signBase(base, privateKey).toString('base64');
    const file = join(dir, 'by-hand.txt');
    await writeFile(file, [
      'HTTP/1.1 200 OK', 'Content-Type: application/json', `Content-Digest: ${contentDigest(body)}`,
      `Signed-Request: GET //watchcat.example:8443${VERIFY_PATH}?lang=en`, `Signature-Input: sig1=${params}`, `Signature: sig1=:${signature}:`, '', body,
    ].join('\r\n'));
    const jwksFile = join(dir, 'jwks.json');
    await writeFile(jwksFile, JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', x }] }));
    const holds = await watchcat('receipt', 'verify', file, '--jwks', jwksFile);
    expect(holds.code, holds.notes.join('\n')).to.equal(0);
    expect(holds.out).to.include(`by key: ${thumbprintByHand(x)} (current key)`);
    expect(holds.out).to.include(`key set: ${jwksFile} (sha-256 ${createHash('sha256').update(await readFile(jwksFile)).digest('hex')})`);

    // The same signature's parameters without its keyid: the key it is by is not said, so nothing is checked against one.
    const saved = await readFile(file, 'latin1');
    await writeFile(file, saved.replace(`;keyid="${thumbprintByHand(x)}"`, ''));
    const noKeyid = await watchcat('receipt', 'verify', file, '--jwks', jwksFile);
    expect(noKeyid.code).to.equal(1);
    expect(noKeyid.notes.join('\n')).to.contain('the signature names no keyid');

    await writeFile(file, saved.replace(/Signature(-Input)?: .*\r\n/g, ''));
    const unsigned = await watchcat('receipt', 'verify', file, '--jwks', jwksFile);
    expect(unsigned).to.deep.include({
      code: 1, notes: ['watchcat: receipt does not hold: the answer carries no signature (Signature-Input and Signature): ask for one with Accept-Signature'],
    });
  });
});
