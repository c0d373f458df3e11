/**
 * A witness's key and its state go together (services/witness/witness-state-file.ts): the state records the public
 * key it was written for, and `watchcat witness` refuses a key with another's state, or a key that may have
 * cosigned without its state (another `--state`, a lost volume), which would forget every tree that key cosigned and
 * cosign a fork of them. A key the witness generates starts its state without being told; `--new-state` starts one
 * for an existing key, only where there is none. Run in-process: SIGTERM is emitted to stop it.
 */
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { MemoryTree } from '../../shared/read-model/transparency/memory-tree.ts';
import { rawPublicKey } from '../../shared/read-model/transparency/signed-note.ts';
import { readEd25519Pem } from '../../shared/signing/ed25519-pem.ts';
import { addTree, runWitness } from '../support/in-process-witness.ts';

const treeOf = (size: number, tag: string) => {
  const tree = new MemoryTree();
  for (let i = 0; i < size; i += 1) tree.append(`${tag}-${i}`);
  return tree;
};

describe('witness: its key and its state go together', function () {
  this.timeout(20_000);
  const logKey = generateKeyPairSync('ed25519').privateKey;
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'watchcat-witness-pair-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const start = (key: string, state: string, ...more: string[]) => runWitness(dir, ['--key', join(dir, key), '--state', join(dir, state), ...more], logKey);
  const publicKeyOf = (key: string) => rawPublicKey(readEd25519Pem(readFileSync(join(dir, key), 'utf8'))!).toString('base64');

  it('refuses a key that has cosigned without its state (another --state), which would cosign a fork; --new-state starts one, only where there is none', async () => {
    const first = start('key.pem', 'state.json');
    expect(await addTree(await first.url(), logKey, treeOf(8, 'a')), 'the key cosigns a tree of 8').to.equal(200);
    expect(await first.stop()).to.equal(0);

    // With an empty state the key would cosign another tree of 8 leaves: a split view under one key.
    const lost = start('key.pem', 'elsewhere/state.json');
    expect(await lost.refusal()).to.equal(1);
    expect(lost.lines.join('\n')).to.match(/no witness state at .*elsewhere\/state\.json.*--new-state/s);
    expect(existsSync(join(dir, 'elsewhere/state.json')), 'nothing started').to.equal(false);

    const told = start('key.pem', 'elsewhere/state.json', '--new-state');
    await told.url();
    expect(await told.stop()).to.equal(0);
    expect(JSON.parse(readFileSync(join(dir, 'elsewhere/state.json'), 'utf8'))).to.deep.equal({ publicKey: publicKeyOf('key.pem'), logs: {} });

    // Left in a unit file, the flag would start an empty state again after the next loss: it is refused once one exists.
    const again = start('key.pem', 'elsewhere/state.json', '--new-state');
    expect(await again.refusal()).to.equal(1);
    expect(again.lines.join('\n')).to.match(/--new-state.*exists/s);
  });

  it('refuses a state recorded for another key, whether that key is generated now or was there', async () => {
    const first = start('key.pem', 'state.json');
    await first.url();
    expect(await first.stop()).to.equal(0);
    const recorded = readFileSync(join(dir, 'state.json'), 'utf8');
    expect(JSON.parse(recorded)).to.include({ publicKey: publicKeyOf('key.pem') });

    const generated = start('other-key.pem', 'state.json');
    expect(await generated.refusal()).to.equal(1);
    expect(generated.lines.join('\n')).to.match(/state\.json was written for another key/);
    const existing = start('other-key.pem', 'state.json');
    expect(await existing.refusal()).to.equal(1);
    expect(existing.lines.join('\n')).to.match(/state\.json was written for another key/);
    expect(readFileSync(join(dir, 'state.json'), 'utf8'), 'the state is left as it was').to.equal(recorded);
  });

  it('starts a key it generates (here, or by --print-key) with no state, without being told', async () => {
    const printed = runWitness(dir, ['--key', join(dir, 'key.pem'), '--state', join(dir, 'state.json'), '--print-key'], logKey);
    expect(await printed.exit).to.equal(0);
    const witness = start('key.pem', 'state.json');
    expect(await addTree(await witness.url(), logKey, treeOf(3, 'a'))).to.equal(200);
    expect(await witness.stop()).to.equal(0);
  });

  it('reads a state written before it recorded the key, keeps its trees and records this key', async () => {
    writeFileSync(join(dir, 'key.pem'), generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
    const earlier = start('earlier-key.pem', 'earlier.json');
    expect(await addTree(await earlier.url(), logKey, treeOf(5, 'a'))).to.equal(200);
    expect(await earlier.stop()).to.equal(0);
    const { logs } = JSON.parse(readFileSync(join(dir, 'earlier.json'), 'utf8')) as { logs: unknown };
    writeFileSync(join(dir, 'state.json'), `${JSON.stringify({ logs }, null, 2)}\n`);

    const witness = start('key.pem', 'state.json');
    const url = await witness.url();
    expect(JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8'))).to.deep.equal({ publicKey: publicKeyOf('key.pem'), logs });
    expect(await addTree(url, logKey, treeOf(5, 'b')), 'the tree of 5 it holds').to.equal(409);
    expect(await addTree(url, logKey, treeOf(9, 'a'), 5)).to.equal(200);
    expect(await witness.stop()).to.equal(0);
  });
});
