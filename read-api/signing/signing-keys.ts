/**
 * The key that signs answers and the public keys served beside it. At scale every API process takes the same
 * private key from RESPONSE_SIGNING_KEY (PKCS#8 PEM); in one process it is generated on first start into
 * `DATA_DIR/keys/response-signing-key.pem` (directory 0700, file 0600) and reused after. Retired public keys come
 * from RESPONSE_SIGNING_RETIRED_KEYS (a JWK Set) so that answers they signed still verify. Any problem stops the
 * start with one `SigningKeyError` line that names the setting or the file and never quotes the key.
 */
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../../shared/config/config.ts';
import { type JwkSet, parseJwkSet, publicJwk, thumbprint } from '../../shared/signing/jwk-set.ts';

export class SigningKeyError extends Error {}

export interface ResponseSigningKeys {
  /** The key that signs, and its `keyid` (RFC 7638 thumbprint). */
  current: { keyid: string; privateKey: KeyObject };
  /** The current public key first, then the retired ones: what `/.well-known/jwks.json` serves. */
  jwks: JwkSet;
}

export const signingKeyFile = (dataDir: string) => join(dataDir, 'keys', 'response-signing-key.pem');

type KeySettings = Pick<Config, 'DATA_DIR' | 'RESPONSE_SIGNING_KEY' | 'RESPONSE_SIGNING_RETIRED_KEYS'>;

export async function loadSigningKeys(config: KeySettings): Promise<ResponseSigningKeys> {
  const privateKey = config.RESPONSE_SIGNING_KEY
    // Environments that cannot hold line breaks pass the PEM with `\n` escapes.
    ? ed25519Key(config.RESPONSE_SIGNING_KEY.replace(/\\n/g, '\n'), 'RESPONSE_SIGNING_KEY')
    : await keyFromDataDir(config.DATA_DIR);
  const current = await publicJwk(privateKey);
  const retired = config.RESPONSE_SIGNING_RETIRED_KEYS ? retiredKeys(config.RESPONSE_SIGNING_RETIRED_KEYS) : [];
  const keys = [current];
  for (const jwk of retired) {
    // Without it, a verifier could not tell a retired key from the current one, nor refuse what it "signed" later.
    if (jwk.exp === undefined) throw new SigningKeyError('RESPONSE_SIGNING_RETIRED_KEYS: every retired key needs "exp", the Unix time it was retired');
    const kid = await thumbprint(jwk);
    if (kid === current.kid) throw new SigningKeyError('RESPONSE_SIGNING_RETIRED_KEYS lists the current signing key as retired');
    keys.push({ ...jwk, kid, alg: 'EdDSA', use: 'sig' });
  }
  return { current: { keyid: current.kid as string, privateKey }, jwks: { keys } };
}

function retiredKeys(text: string): JwkSet['keys'] {
  try {
    return parseJwkSet(text).keys;
  } catch (error) {
    throw new SigningKeyError(`RESPONSE_SIGNING_RETIRED_KEYS is unusable: ${(error as Error).message}`);
  }
}

/** A PKCS#8 PEM Ed25519 private key; the error names `source`, never the text or the parser's words about it. */
function ed25519Key(pem: string, source: string): KeyObject {
  let key: KeyObject | undefined;
  if (pem.includes('-----BEGIN PRIVATE KEY-----')) {
    try {
      key = createPrivateKey({ key: pem, format: 'pem' });
    } catch {
      key = undefined;
    }
  }
  if (key?.asymmetricKeyType !== 'ed25519') throw new SigningKeyError(`${source} is not an Ed25519 private key in PKCS#8 PEM`);
  return key;
}

async function keyFromDataDir(dataDir: string): Promise<KeyObject> {
  const dir = join(dataDir, 'keys');
  const file = signingKeyFile(dataDir);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // mkdir's mode does not change a directory that was already there.
    await chmod(dir, 0o700);
  } catch (error) {
    throw new SigningKeyError(`cannot prepare the signing key directory ${dir}: ${codeOf(error)}`);
  }
  let stored = await readKeyFile(file);
  if (stored === undefined) {
    const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    try {
      // `wx`: of two processes starting together, one writes and both then read the same key.
      await writeFile(file, pem, { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') throw new SigningKeyError(`cannot write the signing key file ${file}: ${codeOf(error)}`);
    }
    stored = await readKeyFile(file);
  }
  return ed25519Key(stored ?? '', `the signing key file ${file}`);
}

/** The key file's text, or undefined when there is none yet. */
async function readKeyFile(file: string): Promise<string | undefined> {
  try {
    const { mode } = await stat(file);
    if ((mode & 0o077) !== 0) {
      throw new SigningKeyError(`the signing key file ${file} is open to other users (mode ${(mode & 0o777).toString(8)}): chmod 600 it`);
    }
    return await readFile(file, 'utf8');
  } catch (error) {
    if (error instanceof SigningKeyError) throw error;
    if (codeOf(error) === 'ENOENT') return undefined;
    throw new SigningKeyError(`cannot read the signing key file ${file}: ${codeOf(error)}`);
  }
}

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? 'error';
