/**
 * `watchcat receipt verify FILE` on a serial index proof file (services/audit/receipt/index-proof.ts): with only the
 * log's verifier key (`--log-key`), a witness policy file (`--policy`) and the file, it exits 0 printing "at
 * checkpoint N, cosigned by k witnesses, serial S was STATUS" and that this is not shown to be the only status at that
 * size (the index line is not under the tree's root: a witness checking only the root may cosign another); with an
 * index policy (`--index-policy`) whose quorum the checkpoint meets and no two disjoint sets of its witnesses do, that
 * it is. A file whose status was changed exits 1 saying the proofs do not show it; a policy asking for a witness that
 * did not cosign exits 1 naming the quorum, and so does an index policy two disjoint sets of witnesses could meet.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { indexProofFile } from '../../services/audit/receipt/index-proof.ts';
import { checkpointBody } from '../../shared/read-model/transparency/checkpoint.ts';
import { cosign, cosignerKey } from '../../shared/read-model/transparency/cosignature.ts';
import { MemoryTree } from '../../shared/read-model/transparency/memory-tree.ts';
import { indexExtension, SerialIndex } from '../../shared/read-model/transparency/serial-index.ts';
import { signNote, verifierKey } from '../../shared/read-model/transparency/signed-note.ts';
import { vrfKey } from '../../shared/read-model/transparency/vrf.ts';
import { watchcat } from '../audit/support/watchcat-run.ts';

const ORIGIN = 'watch.example/watchcat/events';

describe('receipt verify: a serial index proof file, with the log key and the witness policy alone', function () {
  const dir = mkdtempSync(join(tmpdir(), 'watchcat-index-proof-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  const logKey = generateKeyPairSync('ed25519').privateKey;
  const witness = generateKeyPairSync('ed25519').privateKey;
  const vrf = vrfKey(randomBytes(32));
  const index = new SerialIndex(vrf);
  index.set('RG-1000', 'AUTHENTIC');
  index.set('RG-1001', 'AUTHENTIC');
  index.set('RG-1001', 'STOLEN');
  const tree = new MemoryTree();
  for (let i = 0; i < 5; i += 1) tree.append(`event-${i}`);
  const body = checkpointBody({ origin: ORIGIN, size: 5, root: tree.root(), extensions: [indexExtension({ root: index.root(), vrfPublicKey: vrf.publicKey })] });
  const note = `${signNote(body, ORIGIN, logKey)}${cosign(body, 'witness.example/w1', witness, 1_700_000_000)}`;
  const write = (name: string, text: string) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const file = write('RG-1001.proof', indexProofFile(index.answer('RG-1001'), note));
  const log = verifierKey(ORIGIN, logKey);
  const policy = (quorum: string) => write(`${quorum}.policy`, `log ${log}\nwitness W1 ${cosignerKey('witness.example/w1', witness)}\n`
    + `witness W2 ${cosignerKey('witness.example/w2', generateKeyPairSync('ed25519').privateKey)}\ngroup both all W1 W2\nquorum ${quorum}\n`);
  const verify = (path: string, quorum: string, ...more: string[]) =>
    watchcat({ LOG_LEVEL: 'silent', DATA_DIR: dir }, 'receipt', 'verify', path, '--log-key', log, '--policy', policy(quorum), ...more);

  it('prints what the file proves, not that it is the only status at that size, and exits 0', async function () {
    const result = await verify(file, 'W1');
    expect(result.code).to.equal(0);
    expect(result.out).to.deep.equal(['at checkpoint 5, cosigned by 1 witness (W1), serial RG-1001 was STOLEN',
      'unique: not shown: witnesses need only check a checkpoint\'s size and root (C2SP tlog-witness), not its serial index line, so '
      + 'another checkpoint of 5 leaves committing another index may be cosigned too; --index-policy names witnesses held to cosign one '
      + 'checkpoint body per tree size (docs/audit.md, "Serial index proofs")']);
  });

  it('with an index policy, says the status is the only one at that size when its quorum allows it, else exits 1', async function () {
    const result = await verify(file, 'W1', '--index-policy', policy('W1'));
    expect([result.code, result.out[1]]).to.deep.equal([0, 'unique: no other status of RG-1001 at checkpoint 5 can meet the index policy\'s quorum '
      + '(W1, cosigned here by W1), as long as one witness of every quorum of it cosigns one checkpoint body per tree size: no two disjoint sets of its witnesses meet it']);
    const either = write('either.policy', `log ${log}\nwitness W1 ${cosignerKey('witness.example/w1', witness)}\n`
      + `witness W2 ${cosignerKey('witness.example/w2', generateKeyPairSync('ed25519').privateKey)}\ngroup either any W1 W2\nquorum either\n`);
    const split = await verify(file, 'W1', '--index-policy', either);
    expect(split.code).to.equal(1);
    expect(split.notes.join('\n')).to.match(/the index policy's quorum \(either\) can be met by two disjoint sets of witnesses \(W1; W2\)/);
    const short = await verify(file, 'W1', '--index-policy', policy('both'));
    expect(short.code).to.equal(1);
    expect(short.notes.join('\n')).to.match(/the index policy: .*quorum \(both\)/);
  });

  it('exits 1 for another status, and for a policy whose quorum the checkpoint does not meet', async function () {
    const lie = write('lie.proof', indexProofFile({ ...index.answer('RG-1001'), status: 'AUTHENTIC' }, note));
    const refused = await verify(lie, 'W1');
    expect(refused.code).to.equal(1);
    expect(refused.notes.join('\n')).to.match(/serial index proof does not hold: the proofs do not show serial RG-1001 AUTHENTIC/);
    const short = await verify(file, 'both');
    expect(short.code).to.equal(1);
    expect(short.notes.join('\n')).to.match(/quorum \(both\)/);
  });
});
