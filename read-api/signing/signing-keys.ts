/**
 * The key that signs answers and the key history served beside it (docs/api.md, "Signed answers"). At scale every
 * API process takes the same private key from RESPONSE_SIGNING_KEY (PKCS#8 PEM) and the same history from
 * RESPONSE_SIGNING_KEYS: a JWK Set of public keys, each with `nbf` (when it began, or will begin, signing), `exp`
 * once retired, and `revoked: {revoked_at, reason: "compromised"}` once its private half leaked; a next key is
 * listed with its `nbf` before any process signs with it. In one process the key is generated on first start into
 * `DATA_DIR/keys/response-signing-key.pem` (directory 0700, file 0600) and reused after; listed with the time the
 * file was written as its `nbf` when the history does not list it. Any problem stops the start with one
 * `SigningKeyError` line that names the setting or the file and never quotes the key.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Config } from '../../shared/config/config.ts';
import { type Ed25519PublicJwk, type JwkSet, parseJwkSet, publicJwk, thumbprint } from '../../shared/signing/jwk-set.ts';
import { readEd25519Pem } from '../../shared/signing/ed25519-pem.ts';
import { ROTATION_TOLERANCE_SECONDS } from '../../shared/signing/key-validity.ts';

export class SigningKeyError extends Error {}

export interface ResponseSigningKeys {
  /** The key that signs, and its `keyid` (RFC 7638 thumbprint). */
  current: { keyid: string; privateKey: KeyObject };
  /** The key history, as RESPONSE_SIGNING_KEYS lists it: what `/.well-known/jwks.json` serves. */
  jwks: JwkSet;
}

const signingKeyFile = (dataDir: string) => join(dataDir, 'keys', 'response-signing-key.pem');

type KeySettings = Pick<Config, 'DATA_DIR' | 'RESPONSE_SIGNING_KEY' | 'RESPONSE_SIGNING_KEYS'>;

const isoSeconds = (seconds: number) => new Date(seconds * 1000).toISOString();

/** `now` in Unix seconds, for the checks of the signing key's own dates. */
export async function loadSigningKeys(config: KeySettings, now = Math.floor(Date.now() / 1000)): Promise<ResponseSigningKeys> {
  const { privateKey, keyid, keys } = await loadKeyWithHistory({
    pem: config.RESPONSE_SIGNING_KEY, pemSetting: 'RESPONSE_SIGNING_KEY', history: config.RESPONSE_SIGNING_KEYS, historySetting: 'RESPONSE_SIGNING_KEYS',
    file: signingKeyFile(config.DATA_DIR), what: 'signing key',
  }, now);
  return { current: { keyid, privateKey }, jwks: { keys } };
}

/** Where a key that signs and its key history come from (the answer-signing key, the transparency log key). */
interface KeyWithHistorySource {
  /** The private key's PKCS#8 PEM from the environment, or undefined for the key file. */
  pem: string | undefined;
  pemSetting: string;
  /** The key history's JWK Set text, or undefined. */
  history: string | undefined;
  historySetting: string;
  /** The key file generated under DATA_DIR when no PEM is given. */
  file: string;
  /** What the key is, for messages: `signing key`, `log key`. */
  what: string;
}

/**
 * The key that signs and its history, under one set of rules (docs/api.md, "Signed answers"): a key given in the
 * environment must be listed in the history with its `nbf`; one generated into its file is listed, when the history
 * does not list it, with the time its file was written; a key marked compromised, retired, or whose `nbf` is still
 * to come does not sign.
 */
export async function loadKeyWithHistory(
  source: KeyWithHistorySource, now = Math.floor(Date.now() / 1000),
): Promise<{ privateKey: KeyObject; keyid: string; keys: Ed25519PublicJwk[] }> {
  const { historySetting: HISTORY, what } = source;
  const { privateKey, writtenAt } = source.pem
    ? { privateKey: ed25519Key(source.pem, source.pemSetting), writtenAt: undefined }
    : await keyFromDataDir(source.file);
  const current = await publicJwk(privateKey);
  const keys = source.history ? await history(source.history, HISTORY) : [];
  let own = keys.find((key) => key.kid === current.kid);
  if (own === undefined) {
    if (writtenAt === undefined) {
      throw new SigningKeyError(`${HISTORY} must list the ${what} (kid ${current.kid}) with its "nbf", the Unix time it began signing`);
    }
    own = { ...current, nbf: writtenAt };
    keys.unshift(own);
  }
  checkMaySign(own, HISTORY, what, now);
  return { privateKey, keyid: current.kid as string, keys };
}

/**
 * Refuses a listed key that may not sign at `now` (Unix seconds): marked compromised, retired, or whose `nbf` is still
 * to come. `HISTORY` and `what` name the setting and the key in the message.
 */
export function checkMaySign(own: Ed25519PublicJwk, HISTORY: string, what: string, now: number): void {
  if (own.revoked !== undefined) throw new SigningKeyError(`${HISTORY} marks the ${what} (kid ${own.kid}) compromised: sign with a new key`);
  if (own.exp !== undefined && own.exp <= now) throw new SigningKeyError(`${HISTORY} retired the ${what} (kid ${own.kid}) at ${isoSeconds(own.exp)}`);
  // A replica started a little before the planned switch is fine; one started long before signs what a verifier refuses.
  if (own.nbf! > now + ROTATION_TOLERANCE_SECONDS) {
    throw new SigningKeyError(`${HISTORY} says the ${what} (kid ${own.kid}) begins signing at ${isoSeconds(own.nbf!)}, which is still to come`);
  }
}

/** The listed keys, each named by its thumbprint, with the dates a history needs. */
async function history(text: string, HISTORY: string): Promise<Ed25519PublicJwk[]> {
  let listed: Ed25519PublicJwk[];
  try {
    listed = parseJwkSet(text).keys;
  } catch (error) {
    throw new SigningKeyError(`${HISTORY} is unusable: ${(error as Error).message}`);
  }
  const keys: Ed25519PublicJwk[] = [];
  for (const jwk of listed) {
    const kid = await thumbprint(jwk);
    // Without it, a verifier could not refuse what a key "signed" before it was in use.
    if (jwk.nbf === undefined) throw new SigningKeyError(`${HISTORY}: key ${kid} needs "nbf", the Unix time it began (or begins) signing`);
    if (jwk.exp !== undefined && jwk.exp <= jwk.nbf) throw new SigningKeyError(`${HISTORY}: key ${kid} has its "exp" before its "nbf"`);
    if (keys.some((key) => key.kid === kid)) throw new SigningKeyError(`${HISTORY} lists key ${kid} twice`);
    keys.push({ ...jwk, kid, alg: 'EdDSA', use: 'sig' });
  }
  return keys;
}

/** A PKCS#8 PEM Ed25519 private key; the error names `source`, never the text or the parser's words about it. */
export function ed25519Key(pem: string, source: string): KeyObject {
  const key = readEd25519Pem(pem);
  if (key === undefined) throw new SigningKeyError(`${source} is not an Ed25519 private key in PKCS#8 PEM`);
  return key;
}

/**
 * The key generated into `file` on first use (under `DATA_DIR/keys`), and when its file was written (Unix seconds):
 * when it began signing.
 */
async function keyFromDataDir(file: string): Promise<{ privateKey: KeyObject; writtenAt: number }> {
  const dir = dirname(file);
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
  const privateKey = ed25519Key(stored?.text ?? '', `the signing key file ${file}`);
  return { privateKey, writtenAt: Math.floor((stored?.writtenAt ?? Date.now()) / 1000) };
}

/** The key file's text and modification time (ms), or undefined when there is none yet. */
async function readKeyFile(file: string): Promise<{ text: string; writtenAt: number } | undefined> {
  try {
    const { mode, mtimeMs } = await stat(file);
    if ((mode & 0o077) !== 0) {
      throw new SigningKeyError(`the signing key file ${file} is open to other users (mode ${(mode & 0o777).toString(8)}): chmod 600 it`);
    }
    return { text: await readFile(file, 'utf8'), writtenAt: mtimeMs };
  } catch (error) {
    if (error instanceof SigningKeyError) throw error;
    if (codeOf(error) === 'ENOENT') return undefined;
    throw new SigningKeyError(`cannot read the signing key file ${file}: ${codeOf(error)}`);
  }
}

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? 'error';
