/**
 * The witness's own Ed25519 key: a PKCS#8 PEM file, generated on first start (mode 600, in a directory of mode 700)
 * and refused when other users may read it. It is the witness's identity: its verifier key, printed at start, is what
 * a log and a policy name it by (docs/audit.md, "Witnesses").
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { readEd25519Pem } from '../../shared/signing/ed25519-pem.ts';
import { WitnessError } from './witness.ts';

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? 'error';

async function readKey(file: string): Promise<KeyObject | undefined> {
  let mode: number;
  try {
    ({ mode } = await stat(file));
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return undefined;
    throw new WitnessError(`cannot read the witness key ${file}: ${codeOf(error)}`);
  }
  if ((mode & 0o077) !== 0) throw new WitnessError(`the witness key ${file} is open to other users (mode ${(mode & 0o777).toString(8)}): chmod 600 it`);
  const key = readEd25519Pem(await readFile(file, 'utf8'));
  if (key === undefined) throw new WitnessError(`the witness key ${file} is not an Ed25519 private key in PKCS#8 PEM`);
  return key;
}

export async function loadWitnessKey(file: string): Promise<KeyObject> {
  const existing = await readKey(file);
  if (existing) return existing;
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  try {
    await writeFile(file, pem, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if (codeOf(error) !== 'EEXIST') throw new WitnessError(`cannot write the witness key ${file}: ${codeOf(error)}`);
  }
  return (await readKey(file))!;
}
