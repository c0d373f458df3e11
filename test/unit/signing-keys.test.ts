/** Response signing keys (read-api/signing/signing-keys.ts): where they come from, what stops the start, what never leaks. */
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startWatchcat } from '../../all-in-one.ts';
import { loadConfig } from '../../shared/config/config.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { loadSigningKeys, SigningKeyError } from '../../read-api/signing/signing-keys.ts';
import { thumbprintByHand } from '../support/rfc9421-by-hand.ts';
import { newSigningKeyPem } from '../support/signing-keys.ts';

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
      const keys = await loadSigningKeys({ DATA_DIR: dir, RESPONSE_SIGNING_KEY: given });
      expect(keys.current.keyid).to.equal(RFC8037_THUMBPRINT);
      expect(keys.jwks.keys).to.deep.equal([{ kty: 'OKP', crv: 'Ed25519', x: RFC8037_KEY.x, kid: RFC8037_THUMBPRINT, alg: 'EdDSA', use: 'sig' }]);
    }
  });

  it('generates a key on first start under DATA_DIR/keys (directory 0700, file 0600) and reuses it after', async () => {
    const first = await loadSigningKeys({ DATA_DIR: join(dir, 'data') });
    expect((await stat(join(dir, 'data', 'keys'))).mode & 0o777).to.equal(0o700);
    // Where README.md says the key is kept, written out here rather than asked of the code under test.
    expect((await stat(join(dir, 'data', 'keys', 'response-signing-key.pem'))).mode & 0o777).to.equal(0o600);
    const again = await loadSigningKeys({ DATA_DIR: join(dir, 'data') });
    expect(again.current.keyid).to.equal(first.current.keyid);
    expect(first.current.keyid).to.equal(thumbprintByHand(first.jwks.keys[0]!.x));
  });

  it('stops with one message naming the setting or file, never quoting the key, for a bad, foreign or exposed key', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    const cut = newSigningKeyPem().slice(0, 80);
    for (const bad of ['not a key', rsa, cut]) {
      const error = await refusal(loadSigningKeys({ DATA_DIR: dir, RESPONSE_SIGNING_KEY: bad }));
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

  it('lists retired public keys with their exp, and refuses a retired list holding a private key, the current key or a key without exp', async () => {
    const current = newSigningKeyPem();
    const old = await loadSigningKeys({ DATA_DIR: dir, RESPONSE_SIGNING_KEY: newSigningKeyPem() });
    const oldJwk = { kty: 'OKP', crv: 'Ed25519', x: old.jwks.keys[0]!.x, exp: 1_750_000_000 };
    const keys = await loadSigningKeys({ DATA_DIR: dir, RESPONSE_SIGNING_KEY: current, RESPONSE_SIGNING_RETIRED_KEYS: JSON.stringify({ keys: [oldJwk] }) });
    expect(keys.jwks.keys[1]).to.deep.equal({ ...oldJwk, kid: old.current.keyid, alg: 'EdDSA', use: 'sig' });
    const privateJwk = createPrivateKey(current).export({ format: 'jwk' });
    const leaked = await refusal(loadSigningKeys({ DATA_DIR: dir, RESPONSE_SIGNING_KEY: newSigningKeyPem(), RESPONSE_SIGNING_RETIRED_KEYS: JSON.stringify({ keys: [privateJwk] }) }));
    expect(leaked.message).to.equal('RESPONSE_SIGNING_RETIRED_KEYS is unusable: it holds a private key (a "d" member); list public keys only');
    expect(leaked.message).not.to.include(String(privateJwk.d));
    const same = await refusal(loadSigningKeys({ DATA_DIR: dir, RESPONSE_SIGNING_KEY: current, RESPONSE_SIGNING_RETIRED_KEYS: JSON.stringify({ keys: [{ ...privateJwk, d: undefined, exp: 1 }] }) }));
    expect(same.message).to.equal('RESPONSE_SIGNING_RETIRED_KEYS lists the current signing key as retired');
    const undated = JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: old.jwks.keys[0]!.x }] });
    expect((await refusal(loadSigningKeys({ DATA_DIR: dir, RESPONSE_SIGNING_KEY: current, RESPONSE_SIGNING_RETIRED_KEYS: undated }))).message)
      .to.equal('RESPONSE_SIGNING_RETIRED_KEYS: every retired key needs "exp", the Unix time it was retired');
    expect((await refusal(loadSigningKeys({ DATA_DIR: dir, RESPONSE_SIGNING_RETIRED_KEYS: '{"keys":[{"kty":"RSA"}]}' }))).message)
      .to.match(/^RESPONSE_SIGNING_RETIRED_KEYS is unusable: not a JWK Set of Ed25519 public keys/);
  });

  it('stops the whole service before it opens anything when the key is bad', async () => {
    const config = loadConfig({ DATA_DIR: join(dir, 'data'), PORT: '0', OPS_PORT: '0', ADMIN_PORT: '0', HOST: '127.0.0.1', RESPONSE_SIGNING_KEY: 'oops' });
    const error = await refusal(startWatchcat(config, createLogger('silent', 'test')));
    expect(error.message).to.equal('RESPONSE_SIGNING_KEY is not an Ed25519 private key in PKCS#8 PEM');
    const opened = await stat(join(dir, 'data', 'events.sqlite3')).then(() => true, () => false);
    expect(opened, 'no event store file was created').to.equal(false);
  });
});
