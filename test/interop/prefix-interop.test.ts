/**
 * The serial index's prefix tree (shared/read-model/transparency/prefix-tree.ts) checked by a Merkle prefix tree written
 * elsewhere: filippo.io/torchwood v0.6.1's `prefix` package, SHA-256 its hash, through the small program in
 * test/interop/prefix. Torchwood builds its own tree from the entries in the order ours was given them (some keys set
 * again with a new value, as a serial's status changes) and must reach our root; its VerifyMembershipProof and
 * VerifyNonMembershipProof must accept our proof of every present key and of absent ones, in the trees where the
 * shapes differ: empty, one key (an absent key on the key's side of the root, and on the empty side), two keys that
 * differ only in their last bit, and 300 random keys. And they must refuse our proofs used for what they do not prove:
 * a present key's proof with another value, an absent key's proof for a present key, any proof under another root.
 *
 * Two forgeries torchwood's verifier accepts, since a proof node's hash is taken as given and nothing binds its
 * label: a present key's own leaf hash under another label (the key with its last bit flipped), then the leaf's
 * siblings, "proves" the key absent; and so does, where the key's leaf is a child of the root, its leaf hash under
 * the empty node's label, then the other side. Our absence proofs carry the first two nodes' values, and our verifier
 * recomputes their hashes and takes the empty node's own hash only (shared/read-model/transparency/prefix-tree.ts;
 * both refused there: test/unit/transparency/prefix-tree.test.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { PrefixTree, type ProofNode } from '../../shared/read-model/transparency/prefix-tree.ts';
import { askGoProgram, buildGoProgram } from '../support/go-program.ts';
import { cannotRun, registerLegSuite } from '../support/legs.ts';

const SOURCE = fileURLToPath(new URL('./prefix', import.meta.url));

interface GoProof { key: string; value: string; nodes: { bits: number; label: string; hash: string }[] }
interface GoAnswer { error: string; root: string; verified: string[] }

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const valueOf = (text: string) => createHash('sha256').update(text).digest();
const goNodes = (proof: readonly ProofNode[]) => proof.map((node) => ({ bits: node.bits, label: hex(node.label), hash: hex(node.hash) }));

/** A tree and the entries it was given, in order, as torchwood is to be given them. */
class Recorded {
  readonly tree = new PrefixTree();
  readonly entries: [string, string][] = [];
  set(key: Uint8Array, value: Uint8Array): void {
    this.tree.set(key, value);
    this.entries.push([hex(key), hex(value)]);
  }
  proofOf(key: Uint8Array): GoProof {
    const { value, proof } = this.tree.prove(key);
    return { key: hex(key), value: value === undefined ? '' : hex(value), nodes: goNodes(proof) };
  }
}

describe('serial index: our prefix tree checked by torchwood\'s', function () {
  registerLegSuite('Go', this);
  this.timeout(300_000);

  let program: string;
  before(async function () {
    const built = await buildGoProgram(SOURCE, 'filippo.io/torchwood v0.6.1');
    if ('why' in built) return cannotRun(this, 'Go', built.why);
    program = built.program;
  });

  const ask = (recorded: Recorded, proofs: GoProof[], root = hex(recorded.tree.root())) =>
    askGoProgram<GoAnswer>(program, { entries: recorded.entries, root, proofs });

  /** Torchwood reaches our root, and accepts every one of `proofs`. */
  async function expectAgreed(recorded: Recorded, proofs: GoProof[]): Promise<void> {
    const go = await ask(recorded, proofs);
    expect(go.error).to.equal('');
    expect(go.root).to.equal(hex(recorded.tree.root()));
    expect(go.verified).to.deep.equal(proofs.map(() => ''));
  }

  it('agrees on the empty tree and on one key, absent keys on either side of the root proved absent', async function () {
    const recorded = new Recorded();
    const key = Buffer.alloc(32, 0x11);
    const sameSide = Buffer.alloc(32, 0x12);
    const otherSide = Buffer.alloc(32, 0x91);
    await expectAgreed(recorded, [recorded.proofOf(key)]);
    recorded.set(key, valueOf('AUTHENTIC'));
    await expectAgreed(recorded, [recorded.proofOf(key), recorded.proofOf(sameSide), recorded.proofOf(otherSide)]);
  });

  it('agrees on keys that differ only in their last bit, and on a key set again with another value', async function () {
    const recorded = new Recorded();
    const a = Buffer.alloc(32, 0x5a);
    const b = Buffer.from(a);
    b[31]! ^= 0x01;
    recorded.set(a, valueOf('AUTHENTIC'));
    recorded.set(b, valueOf('AUTHENTIC'));
    recorded.set(a, valueOf('STOLEN'));
    const between = Buffer.from(a);
    between[31]! ^= 0x02;
    await expectAgreed(recorded, [recorded.proofOf(a), recorded.proofOf(b), recorded.proofOf(between)]);
  });

  it('agrees on 300 random keys, some set again, and refuses proofs used for what they do not prove', async function () {
    const recorded = new Recorded();
    const keys = Array.from({ length: 300 }, () => randomBytes(32));
    keys.forEach((key, i) => recorded.set(key, valueOf(`AUTHENTIC ${i}`)));
    for (const key of keys.slice(0, 50)) recorded.set(key, valueOf('STOLEN'));
    const absent = Array.from({ length: 50 }, () => randomBytes(32));
    await expectAgreed(recorded, [...keys.map((key) => recorded.proofOf(key)), ...absent.map((key) => recorded.proofOf(key))]);

    const present = recorded.proofOf(keys[0]!);
    const misused: GoProof[] = [
      { ...present, value: hex(valueOf('AUTHENTIC 0')) },
      { ...recorded.proofOf(absent[0]!), key: hex(keys[0]!) },
      { ...present, value: '' },
    ];
    const refused = await ask(recorded, misused);
    expect(refused.verified.map((why) => why !== ''), refused.verified.join('; ')).to.deep.equal([true, true, true]);
    const otherRoot = await ask(recorded, [present, recorded.proofOf(absent[0]!)], hex(randomBytes(32)));
    expect(otherRoot.verified.map((why) => why !== '')).to.deep.equal([true, true]);
  });

  it('accepts, as torchwood v0.6.1 does, a present key\'s leaf under another label, or the empty node\'s, as proof of its absence', async function () {
    const recorded = new Recorded();
    const keys = Array.from({ length: 64 }, () => randomBytes(32));
    for (const key of keys) recorded.set(key, valueOf(hex(key)));
    const key = keys[3]!;
    const lengthAndKey = Buffer.concat([Buffer.of(0, 0, 1, 0), key]);
    const leaf = createHash('sha256').update(valueOf(hex(key))).update(createHash('sha256').update(lengthAndKey).digest()).digest();
    const other = Buffer.from(key);
    other[31]! ^= 0x01;
    const { nodes } = recorded.proofOf(key);
    const forged: GoProof = { key: hex(key), value: '', nodes: [{ bits: 256, label: hex(other), hash: hex(leaf) }, ...nodes] };
    expect((await ask(recorded, [recorded.proofOf(key), forged])).verified).to.deep.equal(['', '']);

    // One key each side of the root: the left one's leaf hash under the empty node's label, then the right one's leaf.
    const sides = new Recorded();
    const [left, right] = [Buffer.alloc(32, 0x11), Buffer.alloc(32, 0x91)];
    sides.set(left, valueOf(hex(left)));
    sides.set(right, valueOf(hex(right)));
    const leftLeaf = createHash('sha256').update(valueOf(hex(left))).update(createHash('sha256').update(Buffer.concat([Buffer.of(0, 0, 1, 0), left])).digest()).digest();
    const emptyForged: GoProof = { key: hex(left), value: '', nodes: [{ bits: 0, label: '', hash: hex(leftLeaf) }, ...sides.proofOf(left).nodes] };
    expect((await ask(sides, [sides.proofOf(left), emptyForged])).verified).to.deep.equal(['', '']);
  });
});
