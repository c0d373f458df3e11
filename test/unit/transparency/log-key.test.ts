/**
 * The log key (README, "Settings": TRANSPARENCY_LOG_KEY): its own file under DATA_DIR, never the answer-signing
 * key, kept across starts; or the PEM given in the environment.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadLogKey } from '../../../read-api/transparency/log-key.ts';
import { loadSigningKeys } from '../../../read-api/signing/signing-keys.ts';
import { rawPublicKey } from '../../../shared/transparency/signed-note.ts';

describe('transparency log: the log key', () => {
  let dataDir: string;
  beforeEach(() => { dataDir = mkdtempSync(join(tmpdir(), 'watchcat-log-key-')); });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is generated once into DATA_DIR/keys/transparency-log-key.pem (mode 0600), apart from the answer-signing key', async () => {
    const first = await loadLogKey({ DATA_DIR: dataDir });
    const again = await loadLogKey({ DATA_DIR: dataDir });
    expect(rawPublicKey(again).equals(rawPublicKey(first))).to.equal(true);
    expect(statSync(join(dataDir, 'keys', 'transparency-log-key.pem')).mode & 0o777).to.equal(0o600);
    const answers = await loadSigningKeys({ DATA_DIR: dataDir });
    expect(rawPublicKey(answers.current.privateKey).equals(rawPublicKey(first))).to.equal(false);
  });

  it('is the PEM of TRANSPARENCY_LOG_KEY when set, with \\n escapes accepted', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const pem = (privateKey.export({ format: 'pem', type: 'pkcs8' }) as string).replace(/\n/g, '\\n');
    const key = await loadLogKey({ DATA_DIR: dataDir, TRANSPARENCY_LOG_KEY: pem });
    expect(rawPublicKey(key).equals(rawPublicKey(privateKey))).to.equal(true);
  });
});
