/** Response signing keys (read-api/signing/signing-keys.ts): where they come from, what stops the start, what never leaks. */
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startWatchcat } from '../../all-in-one.ts';
import { loadConfig } from '../../shared/config/config.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { loadSigningKeys, SigningKeyError } from '../../read-api/signing/signing-keys.ts';
import { thumbprintByHand } from '../support/rfc9421-by-hand.ts';
import { historyEntry, historyOf, newSigningKeyPem } from '../support/signing-keys.ts';

/** RFC 8037, appendix A.1: an Ed25519 key; A.3 gives its RFC 7638 thumbprint. */
const RFC8037_KEY = { kty: 'OKP', crv: 'Ed25519', d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };
const RFC8037_THUMBPRINT = 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k';

async function refusal(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a refusal');
}

describe('response signing keys', () => {
  let dir: string;
  beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'signing-keys-')); });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('takes RESPONSE_SIGNING_KEY (PKCS#8 PEM, also with \\n escapes) and names it by its RFC 7638 thumbprint (RFC 8037 vector)', async () => {
    const pem = createPrivateKey({ key: RFC8037_KEY, format: 'jwk' }).export({ format: 'pem', type: 'pkcs8' }) as string;
    for (const given of [pem, pem.replace(/\n/g, '\\n')]) {
      const keys = await loadSigningKeys({ DATA_DIR: dir, RESPONSE_SIGNING_KEY: given, RESPONSE_SIGNING_KEYS: JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: RFC8037_KEY.x, nbf: 1_700_000_000 }] }) });
      expect(keys.current.keyid).to.equal(RFC8037_THUMBPRINT);
      expect(keys.jwks.keys).to.deep.equal([{ kty: 'OKP', crv: 'Ed25519', x: RFC8037_KEY.x, nbf: 1_700_000_000, kid: RFC8037_THUMBPRINT, alg: 'EdDSA', use: 'sig' }]);
    }
  });

  it('generates a key on first start under DATA_DIR/keys (directory 0700, file 0600), listed from the time it was written, and reuses it after', async () => {
    const before = Math.floor(Date.now() / 1000);
    const first = await loadSigningKeys({ DATA_DIR: join(dir, 'data') });
    expect(first.jwks.keys[0]!.nbf).to.be.within(before, Math.ceil(Date.now() / 1000));
    expect((await stat(join(dir, 'data', 'keys'))).mode & 0o777).to.equal(0o700);
    // Where README.md says the key is kept, written out here rather than asked of the code under test.
    expect((await stat(join(dir, 'data', 'keys', 'response-signing-key.pem'))).mode & 0o777).to.equal(0o600);
    expect(first.jwks.keys, 'the generated key alone, without RESPONSE_SIGNING_KEYS').to.have.length(1);
    const again = await loadSigningKeys({ DATA_DIR: join(dir, 'data') });
    expect(again.current.keyid).to.equal(first.current.keyid);
    expect(first.current.keyid).to.equal(thumbprintByHand(first.jwks.keys[0]!.x));
    // A start long after: the key is still listed from the time its file was written, not from this start.
    const written = 1_700_000_000;
    await utimes(join(dir, 'data', 'keys', 'response-signing-key.pem'), written, written);
    const later = await loadSigningKeys({ DATA_DIR: join(dir, 'data') });
    expect(later.current.keyid).to.equal(first.current.keyid);
    expect(later.jwks.keys[0]!.nbf, 'the file\'s time').to.equal(written);
  });

  it('stops with one message naming the setting or file, never quoting the key, for a bad, foreign or exposed key', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    const cut = newSigningKeyPem().slice(0, 80);
    for (const bad of ['not a key', rsa, cut]) {
      const error = await refusal(loadSigningKeys({ DATA_DIR: dir, RESPONSE_SIGNING_KEY: bad, RESPONSE_SIGNING_KEYS: historyOf(newSigningKeyPem()) }));
      expect(error).to.be.instanceOf(SigningKeyError);
      expect(error.message).to.equal('RESPONSE_SIGNING_KEY is not an Ed25519 private key in PKCS#8 PEM');
    }
    const file = join(dir, 'keys', 'response-signing-key.pem');
    await mkdir(join(dir, 'keys'), { recursive: true });
    await writeFile(file, 'garbage', { mode: 0o600 });
    expect((await refusal(loadSigningKeys({ DATA_DIR: dir }))).message).to.equal(`the signing key file ${file} is not an Ed25519 private key in PKCS#8 PEM`);
    const pem = newSigningKeyPem();
    await writeFile(file, pem);
    await chmod(file, 0o644);
    const exposed = await refusal(loadSigningKeys({ DATA_DIR: dir }));
    expect(exposed.message).to.equal(`the signing key file ${file} is open to other users (mode 644): chmod 600 it`);
    expect(exposed.message + String(exposed.stack)).not.to.include(pem.split('\n')[1]);
    await rm(file);
    await mkdir(file, { mode: 0o700 });
    expect((await refusal(loadSigningKeys({ DATA_DIR: dir }))).message).to.match(new RegExp(`^cannot read the signing key file ${file}: E`));
  });

  it('stops naming the directory when DATA_DIR/keys cannot be made, and never writes the key through a link left at its path', async () => {
    const notADirectory = join(dir, 'file');
    await writeFile(notADirectory, '');
    const keysDir = join(notADirectory, 'keys');
    expect((await refusal(loadSigningKeys({ DATA_DIR: notADirectory }))).message).to.equal(`cannot prepare the signing key directory ${keysDir}: ENOTDIR`);

    const data = join(dir, 'data');
    const file = join(data, 'keys', 'response-signing-key.pem');
    const elsewhere = join(dir, 'elsewhere.pem');
    await mkdir(join(data, 'keys'), { recursive: true, mode: 0o700 });
    await symlink(elsewhere, file);
    const error = await refusal(loadSigningKeys({ DATA_DIR: data }));
    expect(error).to.be.instanceOf(SigningKeyError);
    expect(error.message).to.equal(`the signing key file ${file} is not an Ed25519 private key in PKCS#8 PEM`);
    expect(await stat(elsewhere).then(() => 'written', () => 'absent'), 'the link\'s target').to.equal('absent');
  });

  it('signs with a key until its exp (the clock read when none is given), and from up to 5 minutes before its nbf (README: a replica started early)', async () => {
    const pem = newSigningKeyPem();
    const history = (dates: { nbf: number; exp?: number }) => JSON.stringify({ keys: [historyEntry(pem, dates)] });
    const load = (dates: { nbf: number; exp?: number }, now?: number) => loadSigningKeys({ DATA_DIR: dir, RESPONSE_SIGNING_KEY: pem, RESPONSE_SIGNING_KEYS: history(dates) }, now);
    const wallNow = Math.floor(Date.now() / 1000);
    expect((await load({ nbf: wallNow - 3600, exp: wallNow + 3600 })).jwks.keys).to.have.length(1);
    const now = 1_800_000_000;
    expect((await load({ nbf: now - 3600, exp: now + 1 }, now)).jwks.keys[0]!.exp).to.equal(now + 1);
    expect((await load({ nbf: now + 300 }, now)).jwks.keys[0]!.nbf).to.equal(now + 300);
    expect((await refusal(load({ nbf: now + 301 }, now))).message).to.match(/begins signing at .*, which is still to come$/);
    // A key cannot retire the moment it begins: an exp equal to its nbf is refused like one before it.
    expect((await refusal(load({ nbf: now - 3600, exp: now - 3600 }, now))).message).to.match(/has its "exp" before its "nbf"$/);
  });

  it('serves the history as RESPONSE_SIGNING_KEYS lists it (retired, next and compromised keys), and refuses a history that cannot be one', async () => {
    const now = 1_800_000_000;
    const current = newSigningKeyPem();
    const [retired, next, leaked] = [newSigningKeyPem(), newSigningKeyPem(), newSigningKeyPem()];
    const listed = [
      historyEntry(retired, { nbf: now - 7200, exp: now - 3600 }),
      historyEntry(current, { nbf: now - 3600 }),
      historyEntry(next, { nbf: now + 86_400 }),
      historyEntry(leaked, { nbf: now - 9000, exp: now - 7200, revoked: { revoked_at: now - 60, reason: 'compromised' } }),
    ];
    const load = (keys: unknown[], pem = current) => loadSigningKeys({ DATA_DIR: dir, RESPONSE_SIGNING_KEY: pem, RESPONSE_SIGNING_KEYS: JSON.stringify({ keys }) }, now);
    const keys = await load(listed);
    expect(keys.current.keyid).to.equal(thumbprintByHand(listed[1]!.x));
    expect(keys.jwks.keys).to.deep.equal(listed.map((key) => ({ ...key, kid: thumbprintByHand(key.x), alg: 'EdDSA', use: 'sig' })));

    const message = async (keys: unknown[], pem = current) => (await refusal(load(keys, pem))).message;
    const kid = thumbprintByHand(listed[1]!.x);
    expect(await message([listed[0]])).to.equal(`RESPONSE_SIGNING_KEYS must list the signing key (kid ${kid}) with its "nbf", the Unix time it began signing`);
    expect(await message([{ ...listed[1], nbf: undefined }])).to.equal(`RESPONSE_SIGNING_KEYS: key ${kid} needs "nbf", the Unix time it began (or begins) signing`);
    expect(await message([{ ...listed[1], exp: now - 3600 - 1 }])).to.equal(`RESPONSE_SIGNING_KEYS: key ${kid} has its "exp" before its "nbf"`);
    expect(await message([listed[1], listed[1]])).to.equal(`RESPONSE_SIGNING_KEYS lists key ${kid} twice`);
    expect(await message([{ ...listed[1], exp: now }])).to.equal(`RESPONSE_SIGNING_KEYS retired the signing key (kid ${kid}) at ${new Date(now * 1000).toISOString()}`);
    expect(await message([{ ...listed[1], revoked: { revoked_at: now, reason: 'compromised' } }])).to.equal(`RESPONSE_SIGNING_KEYS marks the signing key (kid ${kid}) compromised: sign with a new key`);
    // Started early for a planned switch: a few minutes are tolerated (shared/signing/key-validity.ts), an hour is not.
    await load([{ ...listed[1], nbf: now + 120 }]);
    expect(await message([{ ...listed[1], nbf: now + 3600 }])).to.equal(`RESPONSE_SIGNING_KEYS says the signing key (kid ${kid}) begins signing at ${new Date((now + 3600) * 1000).toISOString()}, which is still to come`);
    const privateJwk = createPrivateKey(current).export({ format: 'jwk' });
    const withPrivate = await message([{ ...privateJwk, nbf: now - 60 }]);
    expect(withPrivate).to.equal('RESPONSE_SIGNING_KEYS is unusable: it holds a private key (a "d" member); list public keys only');
    expect(withPrivate).not.to.include(String(privateJwk.d));
    expect(await message([{ kty: 'RSA' }])).to.match(/^RESPONSE_SIGNING_KEYS is unusable: not a JWK Set of Ed25519 public keys/);
    expect(await message([{ ...listed[1], revoked: { revoked_at: now, reason: 'bored' } }])).to.match(/^RESPONSE_SIGNING_KEYS is unusable: not a JWK Set/);
  });

  it('stops the whole service before it opens anything when the key is bad', async () => {
    const config = loadConfig({ DATA_DIR: join(dir, 'data'), PORT: '0', OPS_PORT: '0', ADMIN_PORT: '0', HOST: '127.0.0.1', RESPONSE_SIGNING_KEY: 'oops' });
    const error = await refusal(startWatchcat(config, createLogger('silent', 'test')));
    expect(error.message).to.equal('RESPONSE_SIGNING_KEY is not an Ed25519 private key in PKCS#8 PEM');
    const opened = await stat(join(dir, 'data', 'events.sqlite3')).then(() => true, () => false);
    expect(opened, 'no event store file was created').to.equal(false);
  });
});
