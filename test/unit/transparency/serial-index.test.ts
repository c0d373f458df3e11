/**
 * The serial index (shared/read-model/transparency/serial-index.ts): an answer about a serial checks against the index's root
 * with the VRF's public key alone, for a serial AUTHENTIC, STOLEN, recovered, and never registered (NOT_FOUND); and
 * no second answer for the same serial under the same root checks: not the true proofs with another status, not
 * proofs taken from another serial's answer, not an answer from another index (the same serials, one status
 * changed), not an answer altered (serial, status, the VRF proof, any hash or value of the index proof, the labels
 * of an absence proof's two first nodes), not an answer under another VRF key. The one alteration that still checks
 * is of a sibling's label (its bit length or bits) past the prefix of the node it hangs from (prefix-tree.ts: its
 * hash is taken as given, so those are not bound); it leaves the answer saying what it said.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { decodeProof, encodeProof } from '../../../shared/read-model/transparency/prefix-tree.ts';
import { checkpointBody, parseCheckpoint } from '../../../shared/read-model/transparency/checkpoint.ts';
import {
  indexCommitmentOf, indexExtension, SerialIndex, verifyIndexAnswer, type IndexAnswer, type IndexStatus,
} from '../../../shared/read-model/transparency/serial-index.ts';
import { vrfKey } from '../../../shared/read-model/transparency/vrf.ts';

const STATUSES: IndexStatus[] = ['AUTHENTIC', 'STOLEN', 'NOT_FOUND'];

function registry(vrfSecret: Buffer, stolenToo: boolean): SerialIndex {
  const index = new SerialIndex(vrfKey(vrfSecret));
  for (let i = 0; i < 40; i += 1) index.set(`RG-${1000 + i}`, 'AUTHENTIC');
  index.set('RG-1003', 'STOLEN');
  index.set('RG-1004', 'STOLEN');
  index.set('RG-1004', 'AUTHENTIC');
  if (stolenToo) index.set('RG-1005', 'STOLEN');
  return index;
}

describe('serial index: answers', function () {
  const secret = randomBytes(32);
  const publicKey = vrfKey(secret).publicKey;
  const index = registry(secret, true);
  const root = index.root();
  const truth: Record<string, IndexStatus> = { 'RG-1000': 'AUTHENTIC', 'RG-1003': 'STOLEN', 'RG-1004': 'AUTHENTIC', 'RG-1005': 'STOLEN', 'RG-9999': 'NOT_FOUND' };

  it('answers each serial\'s status, and the answer checks with the VRF public key and the root alone', function () {
    expect(index.size).to.equal(40);
    for (const [serial, status] of Object.entries(truth)) {
      const answer = index.answer(serial);
      expect(answer.status, serial).to.equal(status);
      expect(verifyIndexAnswer(publicKey, root, answer), serial).to.equal(true);
    }
  });

  it('checks no second answer for a serial under the same root', function () {
    const other = registry(secret, false);
    for (const [serial, status] of Object.entries(truth)) {
      const answer = index.answer(serial);
      const lies: [string, IndexAnswer][] = [
        ...STATUSES.filter((each) => each !== status).map((each) => [`status ${each}`, { ...answer, status: each }] as [string, IndexAnswer]),
        ...STATUSES.filter((each) => each !== status).map((each) => {
          // The proofs of a serial that does have the claimed status.
          const donor = Object.keys(truth).find((name) => truth[name] === each)!;
          return [`proofs of ${donor}`, { ...index.answer(donor), serial }] as [string, IndexAnswer];
        }),
        ['from another index', other.answer(serial)],
      ];
      for (const [what, lie] of lies) {
        if (lie.status === status && lie.index_proof === answer.index_proof) continue;
        expect(verifyIndexAnswer(publicKey, root, lie), `${serial}: ${what}`).to.equal(false);
      }
    }
    // The other index gives RG-1005 another status: its root is not ours.
    expect(other.root().equals(root)).to.equal(false);
  });

  it('refuses an answer altered in anything that binds it, under another root, or under another VRF key', function () {
    for (const serial of ['RG-1003', 'RG-9999']) {
      const answer = index.answer(serial);
      expect(verifyIndexAnswer(publicKey, root, { ...answer, serial: 'RG-1001' })).to.equal(false);
      // The bytes of the index proof that are a sibling's label (bit length, bits), an absence proof's two first nodes apart.
      const labelBytes = new Set<number>();
      let offset = 0;
      for (const [i, node] of decodeProof(Buffer.from(answer.index_proof, 'base64')).entries()) {
        const size = encodeProof([node]).length;
        if (answer.status !== 'NOT_FOUND' || i >= 2) for (let at = 0; at < 3 + node.label.length; at += 1) if (at !== 2) labelBytes.add(offset + at);
        offset += size;
      }
      for (const field of ['vrf_proof', 'index_proof'] as const) {
        const bytes = Buffer.from(answer[field], 'base64');
        for (let at = 0; at < bytes.length; at += 1) {
          const altered = Buffer.from(bytes);
          altered[at]! ^= 0x01;
          const checks = verifyIndexAnswer(publicKey, root, { ...answer, [field]: altered.toString('base64') });
          if (checks) expect(field === 'index_proof' && labelBytes.has(at), `${serial}: ${field} byte ${at}`).to.equal(true);
        }
      }
      expect(verifyIndexAnswer(publicKey, randomBytes(32), answer)).to.equal(false);
      expect(verifyIndexAnswer(vrfKey(randomBytes(32)).publicKey, root, answer)).to.equal(false);
      expect(verifyIndexAnswer(publicKey, root, { ...answer, status: 'LOST' as IndexStatus })).to.equal(false);
    }
  });

  it('commits the root and the VRF key in one checkpoint extension line, read back from the checkpoint alone', function () {
    const line = indexExtension({ root, vrfPublicKey: publicKey });
    expect(line).to.equal(`watchcat/serial-index/v1 ${root.toString('base64')} ${Buffer.from(publicKey).toString('base64')}`);
    const body = checkpointBody({ origin: 'example.com/watchcat/events', size: 9, root: Buffer.alloc(32), extensions: ['other/ext 1', line] });
    const read = indexCommitmentOf(parseCheckpoint(body));
    expect(read && Buffer.from(read.root).equals(root) && Buffer.from(read.vrfPublicKey).equals(Buffer.from(publicKey))).to.equal(true);
    const checkpoint = { origin: 'o', size: 9, root: Buffer.alloc(32) };
    for (const extensions of [[], [line, line], [`${line} more`], [line.replace(/=? [^ ]+$/, ' AAAA')]]) {
      expect(indexCommitmentOf({ ...checkpoint, extensions }), JSON.stringify(extensions)).to.equal(undefined);
    }
  });
});
