/**
 * The serial index (shared/read-model/transparency/serial-index.ts): an answer about a serial checks against the index's root
 * with the VRF's public key alone, for a serial AUTHENTIC, STOLEN, recovered, and never registered (NOT_FOUND); and
 * no second answer for the same serial under the same root checks: not the true proofs with another status, not
 * proofs taken from another serial's answer, not an answer from another index (the same serials, one status
 * changed), not an answer altered (serial, status, the VRF proof, any hash or value of the index proof, the labels
 * of an absence proof's two first nodes), not an answer under another VRF key. The one alteration that still checks
 * is of a sibling's label (its bit length or bits) past the prefix of the node it hangs from (prefix-tree.ts: its
 * hash is taken as given, so those are not bound); it leaves the answer saying what it said.
 *
 * The index keeps each serial's VRF evaluation once computed (its memo): `costs` says whether a `set` computes one,
 * which is once per serial, its proof computed at the first answer asked and not again; a serial only asked about is
 * not put in the memo, but the evaluations of the serials last asked about are kept in memory, as many as the index
 * is told, and a serial asked about then registered is registered with the evaluation kept. The answers given from what is kept are judged without the index's verifier: the VRF proof by `vrfVerify`
 * (its output's first 32 bytes the key), the index proof by `verifyPrefixProof` with the status's value hashed here
 * (SHA-256 of "watchcat serial index v1\n<status>\n"), and the VRF proof equal byte for byte to that of an index
 * built afresh (RFC 9381's proofs are deterministic); they follow a serial stolen then recovered, and an index started
 * again over the evaluations kept by an earlier one holds none of their serials until it is told them.
 */
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { decodeProof, encodeProof, verifyPrefixProof } from '../../../shared/read-model/transparency/prefix-tree.ts';
import { checkpointBody, parseCheckpoint } from '../../../shared/read-model/transparency/checkpoint.ts';
import {
  indexCommitmentOf, indexExtension, memoryVrfMemo, SerialIndex, verifyIndexAnswer,
  type IndexAnswer, type IndexedStatus, type IndexStatus,
} from '../../../shared/read-model/transparency/serial-index.ts';
import { vrfKey, vrfVerify, type VrfKey } from '../../../shared/read-model/transparency/vrf.ts';

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

/** `key` with the count of its evaluations: `output` (the key alone) and `evaluate` (with the proof). */
function counted(key: VrfKey): { key: VrfKey; calls: { output: number; evaluate: number } } {
  const calls = { output: 0, evaluate: 0 };
  return {
    calls,
    key: {
      publicKey: key.publicKey,
      prove: (alpha) => key.prove(alpha),
      evaluate: (alpha) => { calls.evaluate += 1; return key.evaluate(alpha); },
      output: (alpha) => { calls.output += 1; return key.output(alpha); },
    },
  };
}

/** Whether `answer` proves `status` under `root`, judged by the VRF and the prefix tree alone. */
function provedApart(publicKey: Uint8Array, root: Uint8Array, answer: IndexAnswer, status: IndexStatus): boolean {
  const output = vrfVerify(publicKey, Buffer.from(answer.serial, 'utf8'), Buffer.from(answer.vrf_proof, 'base64'));
  if (output === undefined || answer.status !== status) return false;
  const value = status === 'NOT_FOUND' ? undefined : createHash('sha256').update(`watchcat serial index v1\n${status}\n`).digest();
  return verifyPrefixProof(root, output.subarray(0, 32), value, decodeProof(Buffer.from(answer.index_proof, 'base64')));
}

describe('serial index: the VRF evaluations it keeps', function () {
  const secret = randomBytes(32);

  it('computes a serial\'s key once, at its first status, and says beforehand whether a status will compute it', function () {
    const { key, calls } = counted(vrfKey(secret));
    const index = new SerialIndex(key);
    expect(index.costs('RG-1000'), 'before its first status').to.equal(true);
    index.set('RG-1000', 'AUTHENTIC');
    expect([calls.output, index.costs('RG-1000')], 'after its first status').to.deep.equal([1, false]);
    index.set('RG-1000', 'STOLEN');
    index.set('RG-1000', 'AUTHENTIC');
    expect([calls.output, index.costs('RG-1000')], 'after a theft and a recovery').to.deep.equal([1, false]);
  });

  it('computes a held serial\'s proof once, and puts nothing of a serial only asked about in its memo', function () {
    const { key, calls } = counted(vrfKey(secret));
    const memo = memoryVrfMemo();
    const index = new SerialIndex(key, memo);
    index.set('RG-1000', 'AUTHENTIC');
    index.answer('RG-1000');
    index.set('RG-1000', 'STOLEN');
    index.answer('RG-1000');
    expect(calls.evaluate, 'two answers about a held serial').to.equal(1);
    index.answer('RG-9999');
    index.answer('RG-9999');
    expect(calls.evaluate, 'two answers about a serial never held: its proof kept in memory').to.equal(2);
    expect([memo.get('RG-9999'), index.holds('RG-9999')]).to.deep.equal([undefined, false]);
  });

  it('keeps the evaluations of the serials last asked about, as many as it is told, and hands one to its registration', function () {
    const publicKey = vrfKey(secret).publicKey;
    const { key, calls } = counted(vrfKey(secret));
    const memo = memoryVrfMemo();
    const index = new SerialIndex(key, memo, 2);
    index.set('RG-1000', 'AUTHENTIC');
    const ask = (serial: string) => {
      const answer = index.answer(serial);
      expect(provedApart(publicKey, index.root(), answer, 'NOT_FOUND'), `${serial} NOT_FOUND`).to.equal(true);
    };
    ask('RG-9001');
    ask('RG-9002');
    ask('RG-9001');
    ask('RG-9003');
    expect(calls.evaluate, 'three serials asked, RG-9001 twice').to.equal(3);
    ask('RG-9001');
    ask('RG-9003');
    expect(calls.evaluate, 'the two last asked are kept').to.equal(3);
    ask('RG-9002');
    expect(calls.evaluate, 'the one asked longest ago was not').to.equal(4);
    expect([index.costs('RG-9003'), index.costs('RG-9001'), index.costs('RG-9004')], 'a status costs no VRF output for a serial kept').to.deep.equal([false, true, true]);
    index.set('RG-9003', 'STOLEN');
    expect([calls.output, calls.evaluate], 'registered with the evaluation kept of its ask').to.deep.equal([1, 4]);
    expect(memo.get('RG-9003')?.proof, 'in the memo with its proof').to.be.instanceOf(Buffer);
    expect(provedApart(publicKey, index.root(), index.answer('RG-9003'), 'STOLEN'), 'RG-9003 STOLEN').to.equal(true);
    expect(calls.evaluate, 'its answer computed nothing').to.equal(4);
  });

  it('answers from what it keeps proofs that hold apart from it, through a theft and a recovery', function () {
    const publicKey = vrfKey(secret).publicKey;
    const index = new SerialIndex(vrfKey(secret));
    for (let i = 0; i < 20; i += 1) index.set(`RG-${1000 + i}`, 'AUTHENTIC');
    const steps: [IndexedStatus | undefined, IndexStatus][] = [[undefined, 'AUTHENTIC'], ['STOLEN', 'STOLEN'], ['AUTHENTIC', 'AUTHENTIC']];
    for (const [change, status] of steps) {
      if (change) index.set('RG-1007', change);
      // Built afresh from the same statuses: nothing kept, every evaluation computed again.
      const fresh = new SerialIndex(vrfKey(secret));
      for (let i = 0; i < 20; i += 1) fresh.set(`RG-${1000 + i}`, i === 7 ? status as IndexedStatus : 'AUTHENTIC');
      expect(fresh.root().equals(index.root()), `${status}: the root of the same statuses`).to.equal(true);
      for (const [serial, expected] of [['RG-1007', status], ['RG-1000', 'AUTHENTIC'], ['RG-9999', 'NOT_FOUND']] as const) {
        const answer = index.answer(serial);
        expect(provedApart(publicKey, index.root(), answer, expected), `${serial} ${expected}`).to.equal(true);
        expect(answer.vrf_proof, `${serial}: the VRF proof of an index built afresh`).to.equal(fresh.answer(serial).vrf_proof);
      }
    }
  });

  it('started again over the evaluations an earlier index kept, holds none of their serials until told them', function () {
    const publicKey = vrfKey(secret).publicKey;
    const memo = memoryVrfMemo();
    const earlier = new SerialIndex(vrfKey(secret), memo);
    earlier.set('RG-1000', 'AUTHENTIC');
    earlier.set('RG-1001', 'STOLEN');
    earlier.answer('RG-1001');
    const { key, calls } = counted(vrfKey(secret));
    const again = new SerialIndex(key, memo);
    again.set('RG-1000', 'AUTHENTIC');
    expect([again.holds('RG-1000'), again.holds('RG-1001'), again.holds('RG-9999')]).to.deep.equal([true, false, false]);
    expect(again.costs('RG-1001'), 'its key is kept').to.equal(false);
    const answer = again.answer('RG-1001');
    expect(calls, 'nothing computed: the proof is kept').to.deep.equal({ output: 0, evaluate: 0 });
    expect(provedApart(publicKey, again.root(), answer, 'NOT_FOUND'), 'RG-1001 absent from the index started again').to.equal(true);
    again.set('RG-1001', 'STOLEN');
    expect(again.holds('RG-1001')).to.equal(true);
    expect(provedApart(publicKey, again.root(), again.answer('RG-1001'), 'STOLEN'), 'RG-1001 told again').to.equal(true);
  });

  it('answers no status it cannot name: a value set from a change that is no status is refused', function () {
    const index = new SerialIndex(vrfKey(secret));
    index.set('RG-1000', 'LOST' as IndexedStatus);
    expect(() => index.answer('RG-1000')).to.throw('the serial index holds a value that is no status');
  });
});
